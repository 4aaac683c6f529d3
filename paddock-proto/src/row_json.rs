//! A listing row's JSON written field by field from borrowed parts ([`RowView`]), without
//! making a [`ChatSummary`] first.
//!
//! A daemon makes 10,000 rows for the first listing after a restart. Made as `ChatSummary`s and
//! serialised, each row copied a dozen strings out of the index to drop them again once
//! encoded, and serde's field-by-field dispatch cost as much as the copies. [`RowView`]
//! borrows every text, and [`RowView::write`] writes exactly the bytes `serde_json` writes for
//! the `ChatSummary` it stands for (the tests compare the two over every field, escape and
//! number shape), so a client cannot tell them apart.

use crate::{ChatOverlap, ChatSummary, ChatUsage, ChatWorktree, Origin};

/// A [`ChatSummary`] without its place in a listing (`treeParent`, `level`, `children`),
/// borrowed. Its title is `title`, followed by `…` when `title_cut` (a title cut to
/// [`crate::TITLE_CHARS`] characters is a prefix of the whole one).
#[derive(Debug, Clone, Copy, Default)]
pub struct RowView<'a> {
    pub session_id: &'a str,
    pub project_slug: &'a str,
    pub title: &'a str,
    pub title_cut: bool,
    pub origin: Origin,
    pub depth: u32,
    pub parent_session_id: Option<&'a str>,
    pub parent_project: Option<&'a str>,
    pub created_at: Option<&'a str>,
    pub updated_at: Option<&'a str>,
    pub model: Option<&'a str>,
    pub message_count: u64,
    pub running: bool,
    pub unread: bool,
    pub archived: bool,
    pub starred: bool,
    pub detached: bool,
    pub fork: bool,
    pub worktree: Option<&'a ChatWorktree>,
    pub overlaps: &'a [ChatOverlap],
    pub trigger: Option<&'a str>,
    pub usage: Option<&'a ChatUsage>,
    pub queued: Option<&'a str>,
    pub interrupted: bool,
    pub waiting_approval: bool,
    pub waiting_process: bool,
    pub failed: bool,
    pub interrupted_reason: Option<&'a str>,
    pub parked: Option<&'a str>,
    pub status: Option<&'a str>,
}

/// The `,"level":0` a view writes where a placed row's tree fields go: `level` is always
/// written, and `treeParent` before it and `children` after it are left out when empty.
pub(crate) const LEVEL_ZERO: &str = ",\"level\":0";

impl<'a> RowView<'a> {
    /// The view of `row`, its tree fields left out.
    pub fn of(row: &'a ChatSummary) -> Self {
        // Destructured whole: a field added to the row does not compile until it is here.
        let ChatSummary {
            session_id,
            project_slug,
            title,
            origin,
            depth,
            parent_session_id,
            parent_project,
            created_at,
            updated_at,
            model,
            message_count,
            running,
            unread,
            archived,
            starred,
            detached,
            fork,
            worktree,
            overlaps,
            trigger,
            tree_parent: _,
            level: _,
            children: _,
            usage,
            queued,
            interrupted,
            waiting_approval,
            waiting_process,
            failed,
            interrupted_reason,
            parked,
            status,
        } = row;
        Self {
            session_id,
            project_slug,
            title,
            title_cut: false,
            origin: *origin,
            depth: *depth,
            parent_session_id: parent_session_id.as_deref(),
            parent_project: parent_project.as_deref(),
            created_at: created_at.as_deref(),
            updated_at: updated_at.as_deref(),
            model: model.as_deref(),
            message_count: *message_count,
            running: *running,
            unread: *unread,
            archived: *archived,
            starred: *starred,
            detached: *detached,
            fork: *fork,
            worktree: worktree.as_ref(),
            overlaps,
            trigger: trigger.as_deref(),
            usage: usage.as_ref(),
            queued: queued.as_deref(),
            interrupted: *interrupted,
            waiting_approval: *waiting_approval,
            waiting_process: *waiting_process,
            failed: *failed,
            interrupted_reason: interrupted_reason.as_deref(),
            parked: parked.as_deref(),
            status: status.as_deref(),
        }
    }

    /// The row the view stands for, owned, placed nowhere (its title with `…` when cut).
    pub fn to_summary(&self) -> ChatSummary {
        let owned = |s: Option<&str>| s.map(str::to_owned);
        let mut title = self.title.to_owned();
        if self.title_cut {
            title.push('…');
        }
        ChatSummary {
            session_id: self.session_id.to_owned(),
            project_slug: self.project_slug.to_owned(),
            title,
            origin: self.origin,
            depth: self.depth,
            parent_session_id: owned(self.parent_session_id),
            parent_project: owned(self.parent_project),
            created_at: owned(self.created_at),
            updated_at: owned(self.updated_at),
            model: owned(self.model),
            message_count: self.message_count,
            running: self.running,
            unread: self.unread,
            archived: self.archived,
            starred: self.starred,
            detached: self.detached,
            fork: self.fork,
            worktree: self.worktree.cloned(),
            overlaps: self.overlaps.to_vec(),
            trigger: owned(self.trigger),
            tree_parent: None,
            level: 0,
            children: Vec::new(),
            usage: self.usage.cloned(),
            queued: owned(self.queued),
            interrupted: self.interrupted,
            waiting_approval: self.waiting_approval,
            waiting_process: self.waiting_process,
            failed: self.failed,
            interrupted_reason: owned(self.interrupted_reason),
            parked: owned(self.parked),
            status: owned(self.status),
        }
    }

    /// About how many bytes [`RowView::write`] writes (exact unless texts need escapes).
    pub fn len_hint(&self) -> usize {
        let texts = [
            self.parent_session_id,
            self.parent_project,
            self.created_at,
            self.updated_at,
            self.model,
            self.trigger,
            self.queued,
            self.interrupted_reason,
            self.parked,
            self.status,
        ]
        .iter()
        .map(|t| t.map_or(0, |t| t.len() + 24))
        .sum::<usize>();
        let worktree = self.worktree.map_or(0, |w| {
            w.path.len()
                + w.prefix.len()
                + 12
                + w.branch.len()
                + w.base.len()
                + w.target.len()
                + w.created_at.as_ref().map_or(0, |c| c.len() + 16)
                + w.changed_files.iter().map(|f| f.len() + 3).sum::<usize>()
                + 160
        });
        let overlaps = self
            .overlaps
            .iter()
            .map(|o| o.session_id.len() + 24 + o.files.iter().map(|f| f.len() + 3).sum::<usize>())
            .sum::<usize>();
        self.session_id.len()
            + self.project_slug.len()
            + self.title.len()
            + texts
            + worktree
            + overlaps
            + 460
    }

    /// Appends the row's JSON, tree fields at their defaults; returns where its
    /// [`LEVEL_ZERO`] starts in `out`. Field order and omissions are `ChatSummary`'s serde
    /// attributes.
    pub fn write(&self, out: &mut String) -> usize {
        let Self {
            session_id,
            project_slug,
            title,
            title_cut,
            origin,
            depth,
            parent_session_id,
            parent_project,
            created_at,
            updated_at,
            model,
            message_count,
            running,
            unread,
            archived,
            starred,
            detached,
            fork,
            worktree,
            overlaps,
            trigger,
            usage,
            queued,
            interrupted,
            waiting_approval,
            waiting_process,
            failed,
            interrupted_reason,
            parked,
            status,
        } = *self;
        out.push_str("{\"sessionId\":");
        push_str(out, session_id);
        out.push_str(",\"projectSlug\":");
        push_str(out, project_slug);
        out.push_str(",\"title\":\"");
        push_escaped(out, title);
        if title_cut {
            out.push('…');
        }
        out.push_str("\",\"origin\":\"");
        out.push_str(origin.wire_name());
        out.push_str("\",\"depth\":");
        push_u64(out, depth.into());
        optional(out, "parentSessionId", parent_session_id);
        optional(out, "parentProject", parent_project);
        optional(out, "createdAt", created_at);
        optional(out, "updatedAt", updated_at);
        optional(out, "model", model);
        out.push_str(",\"messageCount\":");
        push_u64(out, message_count);
        flag(out, "running", running);
        flag(out, "unread", unread);
        flag(out, "archived", archived);
        flag(out, "starred", starred);
        if detached {
            out.push_str(",\"detached\":true");
        }
        if fork {
            out.push_str(",\"fork\":true");
        }
        if let Some(worktree) = worktree {
            push_worktree(out, worktree);
        }
        if !overlaps.is_empty() {
            push_serde(out, "overlaps", &overlaps);
        }
        optional(out, "trigger", trigger);
        let place = out.len();
        out.push_str(LEVEL_ZERO);
        if let Some(usage) = usage {
            push_usage(out, usage);
        }
        optional(out, "queued", queued);
        for (key, on) in [
            ("interrupted", interrupted),
            ("waitingApproval", waiting_approval),
            ("waitingProcess", waiting_process),
            ("failed", failed),
        ] {
            if on {
                out.push_str(",\"");
                out.push_str(key);
                out.push_str("\":true");
            }
        }
        optional(out, "interruptedReason", interrupted_reason);
        optional(out, "parked", parked);
        optional(out, "status", status);
        out.push('}');
        place
    }
}

/// The worktree's object as serde writes it (a rare, nested field: exactness over speed).
fn push_worktree(out: &mut String, worktree: &ChatWorktree) {
    push_serde(out, "worktree", worktree);
}

/// `,"key":` and `value` as serde writes it.
fn push_serde<T: serde::Serialize + ?Sized>(out: &mut String, key: &str, value: &T) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":");
    match serde_json::to_string(value) {
        Ok(json) => out.push_str(&json),
        // Strings and numbers only: it cannot fail; null keeps the row valid.
        Err(_) => out.push_str("null"),
    }
}

fn push_usage(out: &mut String, usage: &ChatUsage) {
    let ChatUsage {
        context_tokens,
        context_limit,
        input_tokens,
        output_tokens,
        cache_read_tokens,
        cache_creation_tokens,
        cost_usd,
    } = *usage;
    out.push_str(",\"usage\":{\"contextTokens\":");
    push_u64(out, context_tokens);
    out.push_str(",\"contextLimit\":");
    push_u64(out, context_limit);
    out.push_str(",\"inputTokens\":");
    push_u64(out, input_tokens);
    out.push_str(",\"outputTokens\":");
    push_u64(out, output_tokens);
    out.push_str(",\"cacheReadTokens\":");
    push_u64(out, cache_read_tokens);
    out.push_str(",\"cacheCreationTokens\":");
    push_u64(out, cache_creation_tokens);
    out.push_str(",\"costUsd\":");
    push_f64(out, cost_usd);
    out.push('}');
}

fn optional(out: &mut String, key: &str, value: Option<&str>) {
    if let Some(value) = value {
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\":");
        push_str(out, value);
    }
}

fn flag(out: &mut String, key: &str, on: bool) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str(if on { "\":true" } else { "\":false" });
}

fn push_u64(out: &mut String, mut n: u64) {
    // Not through `fmt`, which was a twentieth of making a row.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or("0"));
}

/// `n` as `serde_json` writes it (shortest round trip; `null` when not finite), by
/// `serde_json` itself: its number format is not ours to copy.
fn push_f64(out: &mut String, n: f64) {
    let mut buf = std::io::Cursor::new([0u8; 40]);
    let written = serde_json::to_writer(&mut buf, &n)
        .ok()
        .and_then(|()| usize::try_from(buf.position()).ok())
        .and_then(|len| buf.get_ref().get(..len))
        .and_then(|bytes| std::str::from_utf8(bytes).ok());
    // 40 bytes hold every f64 serde_json writes; keep the row valid regardless.
    out.push_str(written.unwrap_or("null"));
}

/// Appends `s` as a JSON string, escaped as `serde_json` escapes it.
pub(crate) fn push_str(out: &mut String, s: &str) {
    out.push('"');
    push_escaped(out, s);
    out.push('"');
}

/// Appends `s` escaped for the inside of a JSON string, as `serde_json` escapes it: `"` and
/// `\` with a backslash, the control characters with a short form or `\u00XX` (lower-case
/// hex); everything else, DEL and non-ASCII included, as it is.
fn push_escaped(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        // Eight bytes at a time past text that needs nothing (nearly all of it).
        if let Some(word) = bytes
            .get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            && !any_to_escape(u64::from_le_bytes(word))
        {
            i += 8;
            continue;
        }
        if !to_escape(b) {
            i += 1;
            continue;
        }
        // `i` is at an ASCII byte, so both cuts are at character boundaries.
        out.push_str(s.get(start..i).unwrap_or_default());
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        i += 1;
        start = i;
    }
    out.push_str(s.get(start..).unwrap_or_default());
}

/// Whether a JSON string escapes `b`: a control character, `"` or `\`.
fn to_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether one of the eight bytes of `word` is one [`to_escape`] names (the bit tricks of "Bit
/// Twiddling Hacks": exact as a yes or no).
fn any_to_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let has_below_0x20 = word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0;
    has_below_0x20
        || has_zero(word ^ (ONES * u64::from(b'"')))
        || has_zero(word ^ (ONES * u64::from(b'\\')))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// Every text shape the writer must escape as serde_json does.
    fn texts() -> Vec<String> {
        let mut texts: Vec<String> = vec![
            String::new(),
            "plain".into(),
            "quote \" backslash \\ slash / ✓ é 😀".into(),
            "\u{7f} DEL and \u{80}\u{9f} C1 and \u{2028}\u{2029}".into(),
            ",\"level\":0".into(),
        ];
        texts.push((0u8..0x20).map(char::from).collect());
        texts
    }

    fn rows() -> Vec<ChatSummary> {
        let usage = |cost_usd| ChatUsage {
            context_tokens: u64::MAX,
            context_limit: 0,
            input_tokens: 3,
            output_tokens: 4,
            cache_read_tokens: 5,
            cache_creation_tokens: 6,
            cost_usd,
        };
        let costs = [
            0.0,
            -0.0,
            0.161_006_999_999_999_98,
            0.1 + 0.2,
            1e-7,
            1e21,
            123_456_789.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
        ];
        let origins = [
            Origin::Human,
            Origin::Scheduled,
            Origin::Spawned,
            Origin::Hook,
            Origin::Adopted,
        ];
        let mut rows = vec![ChatSummary::default()];
        for (i, text) in texts().into_iter().enumerate() {
            let some = Some(format!("{text}{i}"));
            rows.push(ChatSummary {
                session_id: text.clone(),
                project_slug: text.clone(),
                title: text.clone(),
                origin: origins[i % origins.len()],
                depth: u32::MAX,
                parent_session_id: some.clone(),
                parent_project: some.clone(),
                created_at: some.clone(),
                updated_at: some.clone(),
                model: some.clone(),
                message_count: u64::MAX,
                running: i % 2 == 0,
                unread: i % 3 == 0,
                archived: i % 2 == 1,
                starred: i % 3 == 1,
                detached: true,
                fork: i % 2 == 1,
                worktree: Some(ChatWorktree {
                    path: text.clone(),
                    prefix: if i % 3 == 0 {
                        String::new()
                    } else {
                        text.clone()
                    },
                    branch: text.clone(),
                    base: text.clone(),
                    target: text.clone(),
                    created_at: (i % 2 == 0).then(|| text.clone()),
                    target_chat: (i % 2 == 1).then(|| text.clone()),
                    ahead: u32::MAX,
                    behind: 3,
                    changed_files: vec![text.clone(); i % 3],
                    merged: (i % 2 == 0).then(|| crate::WorktreeMergeRecord {
                        commit: text.clone(),
                        into: text.clone(),
                        squash: i % 3 == 0,
                        at: text.clone(),
                    }),
                    missing: i % 2 == 1,
                }),
                trigger: some.clone(),
                usage: Some(usage(costs[i % costs.len()])),
                queued: some.clone(),
                interrupted: true,
                waiting_approval: true,
                waiting_process: true,
                failed: true,
                interrupted_reason: some.clone(),
                parked: some.clone(),
                status: some,
                ..ChatSummary::default()
            });
        }
        for (i, cost) in costs.into_iter().enumerate() {
            rows.push(ChatSummary {
                session_id: format!("s{i}"),
                origin: origins[i % origins.len()],
                usage: Some(usage(cost)),
                waiting_process: i % 2 == 0,
                failed: i % 3 == 0,
                ..ChatSummary::default()
            });
        }
        rows
    }

    /// `row` with a NaN cost made 0, so rows compare equal (NaN is not equal to itself).
    fn row_without_nan(row: &ChatSummary) -> ChatSummary {
        let mut row = row.clone();
        if let Some(u) = row.usage.as_mut().filter(|u| u.cost_usd.is_nan()) {
            u.cost_usd = 0.0;
        }
        row
    }

    #[test]
    fn a_view_writes_what_serde_json_writes_for_the_row() {
        for row in rows() {
            let mut out = String::new();
            let place = RowView::of(&row).write(&mut out);
            assert_eq!(out, serde_json::to_string(&row).unwrap(), "{row:?}");
            assert_eq!(out.get(place..place + LEVEL_ZERO.len()), Some(LEVEL_ZERO));
            let back = RowView::of(&row).to_summary();
            assert_eq!(row_without_nan(&back), row_without_nan(&row));
        }
    }

    #[test]
    fn a_word_needs_escaping_exactly_when_one_of_its_bytes_does() {
        for fill in [b'a', 0x80, 0xff, b' '] {
            for at in 0..8 {
                for b in 0..=255u8 {
                    let mut word = [fill; 8];
                    word[at] = b;
                    assert_eq!(
                        any_to_escape(u64::from_le_bytes(word)),
                        b < 0x20 || b == b'"' || b == b'\\',
                        "{word:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn escapes_are_found_at_every_offset_of_a_long_text() {
        let specials = ['"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', 'é', '✓', ' '];
        for at in 0..24 {
            for special in specials {
                for tail in [0, 1, 7, 8, 9, 17] {
                    let text = format!("{}{special}{}", "a".repeat(at), "ü".repeat(tail));
                    let mut out = String::new();
                    push_str(&mut out, &text);
                    assert_eq!(out, serde_json::to_string(&text).unwrap(), "{text:?}");
                }
            }
        }
        for n in [0, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut out = String::new();
            push_u64(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn a_cut_title_ends_in_an_ellipsis() {
        let whole = ChatSummary {
            title: "a \"long\" title".into(),
            ..ChatSummary::default()
        };
        let cut = ChatSummary {
            title: "a \"long\"…".into(),
            ..ChatSummary::default()
        };
        let mut out = String::new();
        RowView {
            title: "a \"long\"",
            title_cut: true,
            ..RowView::of(&whole)
        }
        .write(&mut out);
        assert_eq!(out, serde_json::to_string(&cut).unwrap());
    }

    #[test]
    fn the_length_hint_covers_rows_without_escapes() {
        for row in rows() {
            let view = RowView::of(&row);
            let mut out = String::new();
            view.write(&mut out);
            if !out.contains('\\') {
                assert!(out.len() <= view.len_hint(), "{out}");
            }
        }
    }
}
