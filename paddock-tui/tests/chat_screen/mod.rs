//! Drawing the chat pane (and the composer under it) on a `TestBackend`, for the chat and
//! attachment snapshot tests.

use paddock_tui::tui::chat::ChatView;
use paddock_tui::tui::chat_view::render_chat;
use paddock_tui::tui::composer::Composer;
use paddock_tui::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

/// The spinner tick a running chat is drawn at.
const SPINNER_TICK: u64 = 3;

/// The chat pane at `width`x`height`; with a composer, the composer takes the bottom rows and
/// has the focus.
pub fn draw(
    view: &mut ChatView,
    theme: &Theme,
    width: u16,
    height: u16,
    composer: Option<&mut Composer>,
) -> Result<TestBackend, Box<dyn std::error::Error>> {
    let mut terminal = Terminal::new(TestBackend::new(width, height))?;
    terminal.draw(|frame| {
        let area = frame.area();
        match composer {
            Some(composer) => {
                let h = composer.height(area.width).min(area.height);
                let chat = Rect {
                    height: area.height - h,
                    ..area
                };
                let below = Rect {
                    y: area.y + area.height - h,
                    height: h,
                    ..area
                };
                render_chat(view, theme, 0, frame, chat, false);
                composer.render(theme, frame, below, true);
            }
            None => render_chat(view, theme, SPINNER_TICK, frame, area, true),
        }
    })?;
    Ok(terminal.backend().clone())
}
