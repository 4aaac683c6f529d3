//! How the TUI looks: glyphs (Unicode, or ASCII when the terminal cannot show them) and colors
//! (none when `NO_COLOR` is set). Every view draws through a [`Theme`], so both fallbacks hold
//! everywhere and tests can pin one; every glyph comes from the one vocabulary in [`marks`]
//! (a [`Mark`] means something, a [`Glyph`] is punctuation), so the ASCII theme draws only
//! ASCII and no mark means two things.
//!
//! Origin badges follow the provenance document: scheduled an amber clock, spawned a violet
//! branch (with the depth when it is more than one, and none on a row drawn nested under its
//! parent), hook a sky bolt, adopted an emerald terminal, human nothing.

pub mod marks;

use paddock_proto::{Attribution, Origin};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::border;
use ratatui::text::Span;

pub use marks::{Glyph, Mark};

/// What a piece of text is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Normal,
    Dim,
    Accent,
    Error,
    Warning,
    Success,
    /// The cursor row.
    Selected,
    /// Rows marked with `space` / `v`.
    Marked,
    Running,
    Unread,
    Star,
    Scheduled,
    Spawned,
    Hook,
    Adopted,
    User,
    Assistant,
    Tool,
    Thinking,
    /// The attribution line above a machine-injected turn.
    Attribution,
    /// The words a search matched, in a snippet.
    Match,
    /// The transcript entry a search result jumped to, until the next key.
    Jumped,
}

/// The look the user chose (`T`), remembered in the client state: colours (with the
/// terminal's glyphs), or plain (ASCII, no colour). No choice: as the environment says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThemeChoice {
    Colour,
    Plain,
}

/// Glyphs and colors for one terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Draw Unicode glyphs (else ASCII).
    pub unicode: bool,
    /// Use colors (else only bold / dim / reversed, as `NO_COLOR` allows).
    pub color: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Self {
            unicode: true,
            color: true,
        }
    }
}

impl Theme {
    /// From the environment: `NO_COLOR` (any non-empty value) turns colors off;
    /// `PADDOCK_ASCII=1`, or a locale that is not UTF-8, turns Unicode glyphs off.
    pub fn detect() -> Self {
        Self::detect_with(None)
    }

    /// As [`Theme::detect`], then the user's choice where the environment says nothing
    /// explicit: `NO_COLOR` and `PADDOCK_ASCII` still win over a remembered choice.
    pub fn detect_with(choice: Option<ThemeChoice>) -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let plain = choice == Some(ThemeChoice::Plain);
        let color = var("NO_COLOR").is_none() && !plain;
        let unicode = match var("PADDOCK_ASCII").as_deref() {
            Some("1" | "true" | "yes") => false,
            Some(_) => true,
            None if plain => false,
            None => {
                let locale = var("LC_ALL")
                    .or_else(|| var("LC_CTYPE"))
                    .or_else(|| var("LANG"))
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                // No locale at all (a bare ssh session, a container) usually still renders
                // UTF-8; an explicit non-UTF-8 one (C, POSIX, latin1) does not.
                locale.is_empty() || locale.contains("utf-8") || locale.contains("utf8")
            }
        };
        Self { unicode, color }
    }

    /// The other look: plain from colours, colours (Unicode unless the environment says
    /// ASCII) from plain; and the choice to remember.
    pub fn toggled(&self) -> (Self, ThemeChoice) {
        if self.color {
            (Self::plain(), ThemeChoice::Plain)
        } else {
            let mut colour = Self::detect_with(Some(ThemeChoice::Colour));
            colour.color = true;
            (colour, ThemeChoice::Colour)
        }
    }

    /// ASCII glyphs and no color: what a dumb terminal gets.
    pub fn plain() -> Self {
        Self {
            unicode: false,
            color: false,
        }
    }

    /// The style of a role. Without color, only modifiers.
    pub fn style(&self, role: Role) -> Style {
        let s = Style::new();
        if !self.color {
            return match role {
                Role::Dim | Role::Thinking | Role::Attribution => s.add_modifier(Modifier::DIM),
                Role::Selected => s.add_modifier(Modifier::REVERSED),
                Role::Marked | Role::Unread | Role::Error | Role::Accent => {
                    s.add_modifier(Modifier::BOLD)
                }
                Role::User | Role::Match => s.add_modifier(Modifier::BOLD),
                Role::Jumped => s.add_modifier(Modifier::UNDERLINED),
                _ => s,
            };
        }
        match role {
            Role::Normal | Role::Assistant => s,
            Role::Dim => s.add_modifier(Modifier::DIM),
            Role::Accent => s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Role::Error => s.fg(Color::Red),
            Role::Warning => s.fg(Color::Yellow),
            Role::Success | Role::Running => s.fg(Color::Green),
            Role::Selected => s.add_modifier(Modifier::REVERSED),
            Role::Marked => s.bg(Color::DarkGray),
            Role::Unread => s.fg(Color::LightBlue).add_modifier(Modifier::BOLD),
            Role::Star => s.fg(Color::Yellow),
            // Amber, violet, sky, emerald.
            Role::Scheduled => s.fg(Color::Rgb(245, 158, 11)),
            Role::Spawned => s.fg(Color::Rgb(139, 92, 246)),
            Role::Hook => s.fg(Color::Rgb(56, 189, 248)),
            Role::Adopted => s.fg(Color::Rgb(16, 185, 129)),
            Role::User => s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Role::Tool => s.fg(Color::Magenta),
            Role::Thinking => s.add_modifier(Modifier::DIM | Modifier::ITALIC),
            Role::Attribution => s.fg(Color::Gray).add_modifier(Modifier::ITALIC),
            Role::Match => s
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            Role::Jumped => s.bg(Color::DarkGray),
        }
    }

    /// A mark, in this theme's glyphs.
    pub fn mark(&self, mark: Mark) -> &'static str {
        mark.glyph(self.unicode)
    }

    /// A piece of punctuation, in this theme's glyphs.
    pub fn glyph(&self, glyph: Glyph) -> &'static str {
        glyph.glyph(self.unicode)
    }

    /// Words written elsewhere (a notice, a daemon's sentence, a line a formatter shared with
    /// the CLI wrote) in this theme: in ASCII, each of the vocabulary's Unicode glyphs in them
    /// becomes its ASCII form (`…` `...`, `·` `-`, `→` `->`, `✗` `x`...).
    pub fn words<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        if self.unicode || text.is_ascii() {
            return std::borrow::Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match marks::ascii_of(c) {
                Some(ascii) => out.push_str(ascii),
                None => out.push(c),
            }
        }
        std::borrow::Cow::Owned(out)
    }

    /// The running mark at animation step `tick`.
    pub fn spinner(&self, tick: u64) -> &'static str {
        let frames: &[&'static str] = if self.unicode {
            &marks::RUNNING
        } else {
            &marks::RUNNING_ASCII
        };
        let step = tick % frames.len() as u64;
        frames
            .get(usize::try_from(step).unwrap_or(0))
            .copied()
            .unwrap_or(frames[0])
    }

    /// The fold mark of a row with children: folded or open.
    pub fn fold(&self, folded: bool) -> &'static str {
        self.mark(if folded { Mark::Folded } else { Mark::Unfolded })
    }

    /// The branch drawn before a nested row, two columns wide.
    pub fn branch(&self) -> String {
        format!("{:<2}", self.mark(Mark::Nested))
    }

    /// A box's lines: rounded, or ASCII.
    pub fn border(&self) -> border::Set<'static> {
        marks::border(self.unicode)
    }

    /// An origin's badge; `None` for a human chat, and for a spawned chat drawn nested under
    /// its parent (the indentation already says it). `narrow` leaves the word out.
    pub fn badge(
        &self,
        origin: Origin,
        depth: u32,
        nested: bool,
        narrow: bool,
    ) -> Option<Span<'static>> {
        let (icon, word, role) = match origin {
            Origin::Human => return None,
            Origin::Spawned if nested => return None,
            Origin::Scheduled => (self.mark(Mark::Scheduled), "scheduled", Role::Scheduled),
            Origin::Spawned => (self.mark(Mark::Spawned), "spawned", Role::Spawned),
            Origin::Hook => (self.mark(Mark::Hook), "hook", Role::Hook),
            Origin::Adopted => (self.mark(Mark::Adopted), "adopted", Role::Adopted),
        };
        let levels = if origin == Origin::Spawned && depth > 1 {
            format!("{}{depth}", self.glyph(Glyph::Levels))
        } else {
            String::new()
        };
        let text = if narrow {
            format!("{icon}{levels}")
        } else {
            format!("{icon} {word}{levels}")
        };
        Some(Span::styled(text, self.style(role)))
    }

    /// A fork's mark, after its origin's badge: `⋔ fork`, the icon alone when `narrow`.
    pub fn fork_badge(&self, narrow: bool) -> Span<'static> {
        let icon = self.mark(Mark::Fork);
        let text = if narrow {
            icon.to_owned()
        } else {
            format!("{icon} fork")
        };
        Span::styled(text, self.style(Mark::Fork.role()))
    }

    /// An overlap's mark: `⇄ overlap`, the icon alone when `narrow`.
    pub fn overlap_badge(&self, narrow: bool) -> Span<'static> {
        let icon = self.mark(Mark::Overlap);
        let text = if narrow {
            icon.to_owned()
        } else {
            format!("{icon} overlap")
        };
        Span::styled(text, self.style(Mark::Overlap.role()))
    }

    /// The attribution line's text above a machine-injected turn; `from` is how to name the
    /// sending chat (its title, else its id).
    pub fn attribution(&self, a: &Attribution) -> (String, Role) {
        match a {
            Attribution::Scheduled { name } => (
                format!("{} scheduled by {name}", self.mark(Mark::Scheduled)),
                Role::Scheduled,
            ),
            Attribution::Sent {
                from_session_id,
                from_title,
                ..
            } => {
                let from = from_title.as_deref().unwrap_or(from_session_id);
                (
                    format!("{} sent by {from}", self.mark(Mark::Sent)),
                    Role::Spawned,
                )
            }
            Attribution::Hook { name } => (
                format!("{} triggered by hook {name}", self.mark(Mark::Hook)),
                Role::Hook,
            ),
            Attribution::Recovery => (
                format!(
                    "{} continued after its last turn was cut short",
                    self.mark(Mark::Interrupted)
                ),
                Role::Warning,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn badges_follow_the_provenance_rules() {
        let t = Theme::default();
        assert!(t.badge(Origin::Human, 0, false, false).is_none());
        assert!(t.badge(Origin::Spawned, 1, true, false).is_none(), "nested");
        let top = t.badge(Origin::Spawned, 1, false, false).map(|s| s.content);
        assert_eq!(top.as_deref(), Some("⑂ spawned"));
        let deep = t.badge(Origin::Spawned, 3, false, true).map(|s| s.content);
        assert_eq!(deep.as_deref(), Some("⑂·3"));
        let plain = Theme::plain();
        let hook = plain.badge(Origin::Hook, 0, false, false);
        assert_eq!(hook.map(|s| s.content).as_deref(), Some("% hook"));
        assert_eq!(plain.style(Role::Scheduled), Style::new());
    }

    #[test]
    fn words_from_elsewhere_take_the_themes_glyphs() {
        let words = "pushing web… · 3 → 4 “done” ✗ café";
        assert_eq!(Theme::default().words(words), words);
        assert_eq!(
            Theme::plain().words(words),
            "pushing web... - 3 -> 4 \"done\" x café"
        );
    }

    #[test]
    fn attribution_lines_read_as_the_document_says() {
        let t = Theme::default();
        let (text, _) = t.attribution(&Attribution::Hook { name: "ci".into() });
        assert_eq!(text, "⚡ triggered by hook ci");
        let (text, _) = t.attribution(&Attribution::Sent {
            from_session_id: "s1".into(),
            from_project: String::new(),
            from_title: Some("Manager".into()),
        });
        assert_eq!(text, "↩ sent by Manager");
    }
}
