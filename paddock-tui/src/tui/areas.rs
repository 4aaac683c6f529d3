//! How a view splits the area it is given: a title row over its body, a foot under its list.

use ratatui::layout::{Constraint, Layout, Rect};

/// `area` as its first row (the view's title) and the rows below it (its body).
pub fn title_and_body(area: Rect) -> (Rect, Rect) {
    let title = Rect {
        height: area.height.min(1),
        ..area
    };
    let body = Rect {
        y: area.y + title.height,
        height: area.height - title.height,
        ..area
    };
    (title, body)
}

/// `area` as the rows above a foot of `lines` rows (at most half of it), and the foot.
pub fn above_foot(area: Rect, lines: usize) -> (Rect, Rect) {
    let height = u16::try_from(lines)
        .unwrap_or(u16::MAX)
        .min(area.height / 2);
    let [top, foot] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(height)]).areas(area);
    (top, foot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_row_and_a_foot_of_at_most_half() {
        let area = Rect::new(2, 3, 40, 10);
        assert_eq!(
            title_and_body(area),
            (Rect::new(2, 3, 40, 1), Rect::new(2, 4, 40, 9))
        );
        assert_eq!(
            title_and_body(Rect::new(0, 0, 5, 0)),
            (Rect::new(0, 0, 5, 0), Rect::new(0, 0, 5, 0))
        );
        assert_eq!(
            above_foot(area, 2),
            (Rect::new(2, 3, 40, 8), Rect::new(2, 11, 40, 2))
        );
        assert_eq!(above_foot(area, 30).1.height, 5);
    }
}
