//! The help overlay as a view over everything (the status line too): `?` or F1 opens it, it
//! scrolls, Esc (or `?`, or `q`) closes it. What it shows is [`help`](super::help)'s.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::help::{help_max_scroll, render_help};
use super::keys::{Command, Context};
use super::overlay::{Cx, DrawCx, Layer, Overlay, Reaction};

/// The help overlay, scrolled this far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HelpView {
    pub scroll: u16,
}

impl Overlay for HelpView {
    fn layer(&self) -> Layer {
        Layer::Help
    }

    fn context(&self) -> Context {
        Context::Help
    }

    fn on_command(&mut self, command: Command, cx: &mut Cx<'_>) -> Reaction {
        let scroll = self.scroll;
        let page = u16::try_from(cx.page).unwrap_or(10);
        self.scroll = match command {
            Command::Back | Command::Help | Command::Quit => return Reaction::Close,
            Command::Down => scroll.saturating_add(1),
            Command::Up => scroll.saturating_sub(1),
            Command::PageDown => scroll.saturating_add(page),
            Command::PageUp => scroll.saturating_sub(page),
            Command::Top => 0,
            Command::Bottom => u16::MAX,
            _ => scroll,
        };
        Reaction::Handled
    }

    fn render(&mut self, frame: &mut Frame<'_>, _area: Rect, cx: &DrawCx<'_>) {
        let max = help_max_scroll(cx.theme, cx.below, cx.screen);
        self.scroll = self.scroll.min(max);
        render_help(cx.theme, cx.below, frame, cx.screen, self.scroll);
    }

    fn over_screen(&self) -> bool {
        true
    }

    fn over_panes(&self) -> bool {
        false
    }

    fn hints(&self) -> Vec<(&'static str, &'static str)> {
        vec![("j/k", "scroll"), ("esc", "close")]
    }
}
