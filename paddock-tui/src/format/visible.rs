//! Content made harmless for a terminal, by one rule: every text that came from a model, a tool,
//! a file or a transcript is shown with the characters a terminal would act on made visible, so
//! nothing in it can write the clipboard (OSC 52), set the window title (OSC 0), clear the
//! screen, colour what follows, move the cursor back over a line, or reorder what is shown.
//!
//! | character | shown as |
//! |---|---|
//! | newline, tab | kept |
//! | carriage return before a newline (a CRLF line end) | kept: it moves nothing that is then overwritten |
//! | any other C0 control (U+0000–U+001F), carriage return included | its Unicode control picture, U+2400 + the code: ESC as `␛`, BEL as `␇`, CR as `␍` |
//! | DEL (U+007F) | `␡` |
//! | a C1 control (U+0080–U+009F; U+009B is an 8-bit CSI) | `\u{9b}` |
//! | a bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069), which can make text read other than it is | `\u{202e}` |
//!
//! The command line writes everything it prints but JSON through this rule (`commands/output.rs`),
//! and JSON with those characters as `\uXXXX` escapes ([`json_escaped`]: serde escapes only C0);
//! the TUI cleans text with it as it lays it out (`tui/chat_view/text.rs`), and every frame's
//! cells are swept before they reach the terminal (`tui/render.rs`). The program's own styling
//! (the bold of `paddock search`) is added outside the content, as a [`Styled`] text.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown otherwise than as itself (a newline and a tab are kept; a carriage
/// return is judged with what follows it, in [`push_visible`]).
pub fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character a terminal would act on made visible (the module's table);
/// borrowed when there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    match text.find(is_hidden) {
        Some(at) if !only_crlf_from(text, at) => {
            let mut out = String::with_capacity(text.len() + 16);
            out.push_str(&text[..at]);
            push_visible(&mut out, &text[at..]);
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(text),
    }
}

/// Whether every hidden character from `at` on is a carriage return ending a CRLF line.
fn only_crlf_from(text: &str, at: usize) -> bool {
    let rest = &text[at..];
    rest.char_indices()
        .filter(|&(_, c)| is_hidden(c))
        .all(|(i, c)| c == '\r' && rest[i + 1..].starts_with('\n'))
}

/// Appends `text` to `out` with every character a terminal would act on made visible.
pub fn push_visible(out: &mut String, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            out.push(c);
        } else {
            push_visible_char(out, c);
        }
    }
}

/// Appends one character as it is shown: itself, or its visible form (a carriage return is
/// always made visible here: one char alone cannot be a CRLF line end).
pub fn push_visible_char(out: &mut String, c: char) {
    match c {
        '\n' | '\t' => out.push(c),
        '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + u32::from(c)).unwrap_or('?')),
        '\u{7f}' => out.push('\u{2421}'),
        c if is_hidden(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// JSON text with every character a terminal would act on that serde writes as it is (DEL,
/// the C1 controls, the bidirectional controls: it escapes only C0) written as a `\uXXXX`
/// escape: the same JSON value, harmless on a terminal. Such characters can only be inside
/// strings (JSON's own syntax is ASCII), where the escape means the same character.
pub fn json_escaped(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    // DEL is 0x7F; a C1 control is encoded 0xC2 0x80-0x9F; a bidi control 0xE2 0x80/0x81 ….
    let mut from = 0;
    let mut out: Option<String> = None;
    let mut copied = 0;
    while let Some(i) = memchr::memchr3(0x7f, 0xc2, 0xe2, &bytes[from..]).map(|i| i + from) {
        let Some(c) = json[i..].chars().next() else {
            break;
        };
        from = i + c.len_utf8();
        if is_hidden(c) {
            let out = out.get_or_insert_with(|| String::with_capacity(json.len() + 16));
            out.push_str(&json[copied..i]);
            let _ = write!(out, "\\u{:04x}", u32::from(c));
            copied = from;
        }
    }
    match out {
        Some(mut out) => {
            out.push_str(&json[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(json),
    }
}

/// Terminal styling the program itself adds around content: the only escape sequences the
/// command line writes to stdout outside JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Bold,
    NotBold,
}

impl Style {
    fn sequence(self) -> &'static str {
        match self {
            Style::Bold => "\x1b[1m",
            Style::NotBold => "\x1b[22m",
        }
    }
}

/// Text for a terminal made of content (made visible as it is added) and the program's own
/// [`Style`]s: what the command line prints as it is, without cleaning it again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Styled(String);

impl Styled {
    pub fn new() -> Self {
        Self::default()
    }

    /// Content, made visible.
    pub fn content(&mut self, text: &str) {
        push_visible(&mut self.0, text);
    }

    /// One character of content, made visible.
    pub fn content_char(&mut self, c: char) {
        push_visible_char(&mut self.0, c);
    }

    /// Another styled text, after this one.
    pub fn append(&mut self, other: Styled) {
        self.0.push_str(&other.0);
    }

    pub fn style(&mut self, style: Style) {
        self.0.push_str(style.sequence());
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Write for Styled {
    /// Formatted content (`write!(styled, ...)`), made visible like [`Styled::content`].
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.content(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a terminal acts on in shown text: C0 but newline and tab, DEL, C1, and the bidi
    /// controls.
    fn acts(c: char) -> bool {
        (c.is_control() && c != '\n' && c != '\t')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    }

    #[test]
    fn every_byte_value_is_kept_or_made_visible() {
        for b in 0u8..=0xff {
            let c = char::from(b);
            let text = format!("a{c}b");
            let shown = visible(&text);
            assert!(!shown.chars().any(acts), "{b:#04x} shown as {shown:?}");
            assert!(shown.starts_with('a') && shown.ends_with('b'), "{b:#04x}");
            match b {
                b'\n' | b'\t' => assert_eq!(shown, text),
                0x00..=0x1f => {
                    let picture = char::from_u32(0x2400 + u32::from(b)).unwrap_or('?');
                    assert_eq!(shown, format!("a{picture}b"), "{b:#04x}");
                }
                0x7f => assert_eq!(shown, "a␡b"),
                0x80..=0x9f => assert_eq!(shown, format!("a\\u{{{b:x}}}b")),
                _ => assert_eq!(shown, text, "{b:#04x} is printable"),
            }
        }
    }

    #[test]
    fn every_control_and_bidi_character_is_made_visible() {
        let all = ('\u{0}'..='\u{2fff}').filter(|&c| acts(c));
        for c in all {
            assert!(is_hidden(c), "{:#x}", u32::from(c));
            let shown = visible(&c.to_string()).into_owned();
            assert!(!shown.chars().any(acts), "{:#x} as {shown:?}", u32::from(c));
            assert!(!shown.is_empty());
        }
        assert_eq!(visible("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(visible("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(visible("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }

    #[test]
    fn escape_sequences_show_as_text() {
        assert_eq!(
            visible("\x1b]52;c;cHduZWQ=\x07 \x1b]0;title\x07 \x1b[2J \x1b[31mred"),
            "␛]52;c;cHduZWQ=␇ ␛]0;title␇ ␛[2J ␛[31mred"
        );
    }

    #[test]
    fn a_carriage_return_shows_unless_it_ends_a_crlf_line() {
        assert_eq!(visible("one\r\ntwo\r\n"), "one\r\ntwo\r\n");
        assert!(matches!(visible("one\r\ntwo"), Cow::Borrowed(_)));
        assert_eq!(visible("safe\rrm -rf"), "safe␍rm -rf");
        assert_eq!(visible("a\r\n\rb\r"), "a\r\n␍b␍");
        assert_eq!(visible("\r\r\n"), "␍\r\n");
    }

    #[test]
    fn plain_text_is_borrowed() {
        for text in ["", "hello", "tab\tand\nnewline", "café ✓ 日本 👍", "عربى"] {
            assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn json_holds_no_character_a_terminal_acts_on_and_means_the_same() {
        let all: String = ('\u{0}'..='\u{2fff}').collect();
        let value = serde_json::json!({"text": all, "k\u{9b}": ["\u{202e}", "\u{7f}é€"]});
        for json in [
            serde_json::to_string(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap(),
        ] {
            let escaped = json_escaped(&json);
            assert!(!escaped.chars().any(acts), "{escaped}");
            let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
            assert_eq!(back, value);
        }
        assert_eq!(json_escaped("\"a\u{9b}2J\""), r#""a\u009b2J""#);
        assert_eq!(json_escaped("\"\u{202e}\u{7f}\""), r#""\u202e\u007f""#);
        for plain in [r#"{"a":"café ✓ – ‘q’ 日本 👍"}"#, "[]", ""] {
            assert!(matches!(json_escaped(plain), Cow::Borrowed(t) if t == plain));
        }
    }

    #[test]
    fn styled_text_keeps_its_own_styles_only() {
        let mut s = Styled::new();
        s.content("a\x1b[1m");
        s.style(Style::Bold);
        s.content_char('\x1b');
        let bell = '\x07';
        let _ = write!(s, "{bell}");
        s.style(Style::NotBold);
        assert_eq!(s.as_str(), "a␛[1m\x1b[1m␛␇\x1b[22m");
    }
}
