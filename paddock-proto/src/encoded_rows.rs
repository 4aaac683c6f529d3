//! Listing rows encoded once and placed many times, and the `chat:list` response made of them.
//!
//! A daemon that keeps its listing rows between requests keeps them encoded: a row's JSON is
//! written when the row changes, not each time it is listed. What a row's JSON cannot hold
//! ahead is where the listing places it (`treeParent`, `level`, `children`): [`EncodedRow`]
//! keeps the JSON with that place left open and writes the placed row in one copy. The line
//! [`encode_chats`] writes is byte for byte what [`crate::encode`] writes for the same
//! response with decoded rows, so a client cannot tell the two apart.

use std::fmt::Write;

use crate::codec::within_server_limit;
use crate::row_json::{LEVEL_ZERO, RowView, push_str};
use crate::{ChatSummary, Chats, ControlMessage, FrameError, Outcome};
use crate::{Reply, RequestId, Response, ServerMessage};

/// A [`ChatSummary`] as JSON, without its place in a listing (`treeParent`, `level`,
/// `children`), which [`EncodedRow::write_placed`] puts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedRow {
    /// The row's JSON with the tree fields at their defaults.
    json: Box<str>,
    /// Where its `,"level":0` is, which the placed row's tree fields replace.
    place: usize,
}

/// Where a listing puts a row: the tree fields of [`ChatSummary`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Place<'a> {
    pub tree_parent: Option<&'a str>,
    pub level: u32,
    pub children: &'a [String],
}

impl EncodedRow {
    /// Encodes `row`; its own tree fields are ignored (a row is placed when it is listed).
    pub fn new(row: &ChatSummary) -> Self {
        Self::of(&RowView::of(row))
    }

    /// Encodes the row `view` stands for ([`RowView::write`]).
    pub fn of(view: &RowView<'_>) -> Self {
        // Sized for the row at once: grown from empty, the buffer was copied four times.
        let mut json = String::with_capacity(view.len_hint());
        let place = view.write(&mut json);
        Self {
            json: json.into_boxed_str(),
            place,
        }
    }

    /// Appends the row placed at `place` to `out`: what [`crate::encode`] writes for the
    /// [`ChatSummary`] with those tree fields.
    pub fn write_placed(&self, place: Place<'_>, out: &mut String) {
        let head = self.json.get(..self.place).unwrap_or_default();
        let tail = self
            .json
            .get(self.place + LEVEL_ZERO.len()..)
            .unwrap_or_default();
        out.reserve(head.len() + tail.len() + 64);
        out.push_str(head);
        if let Some(parent) = place.tree_parent {
            out.push_str(",\"treeParent\":");
            push_str(out, parent);
        }
        // Writing to a `String` cannot fail.
        let _ = write!(out, ",\"level\":{}", place.level);
        if !place.children.is_empty() {
            out.push_str(",\"children\":[");
            for (i, child) in place.children.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_str(out, child);
            }
            out.push(']');
        }
        out.push_str(tail);
    }
}

/// The line (newline included) of the successful response `id` to a `chat:list` whose
/// answer is `chats` with the rows `rows` writes into its `chats`, one call per row, in order
/// (`chats.chats` itself must be empty). The same bytes as [`crate::encode`] of the response
/// with those rows decoded; refuses a line longer than [`crate::MAX_SERVER_LINE_BYTES`].
pub fn encode_chats<F>(
    id: RequestId,
    chats: Chats,
    rows: usize,
    mut row: F,
) -> Result<String, FrameError>
where
    F: FnMut(usize, &mut String) -> Result<(), FrameError>,
{
    if !chats.chats.is_empty() {
        return Err(FrameError::Encode(
            "encode_chats takes its rows from its writer".into(),
        ));
    }
    let msg = ServerMessage::Control(ControlMessage::Response(Response {
        id,
        outcome: Outcome::Ok(Reply::Chats(chats)),
    }));
    let frame = serde_json::to_string(&msg).map_err(|e| FrameError::Encode(e.to_string()))?;
    // The reply's tag and its first field come before any string a user wrote.
    const ROWS: &[u8] = b"\"kind\":\"chats\",\"chats\":[]";
    let at = memchr::memmem::find(frame.as_bytes(), ROWS)
        .map(|at| at + ROWS.len() - 1)
        .ok_or_else(|| FrameError::Encode("a chats reply has no `chats`".into()))?;
    let mut line = String::with_capacity(frame.len() + rows * 640 + 1);
    line.push_str(&frame[..at]);
    for i in 0..rows {
        if i > 0 {
            line.push(',');
        }
        row(i, &mut line)?;
        within_server_limit(&line)?;
    }
    line.push_str(&frame[at..]);
    within_server_limit(&line)?;
    line.push('\n');
    Ok(line)
}

/// Appends `row` as JSON: for a row the encoded form does not hold (a title asked for whole).
pub fn write_row(row: &ChatSummary, out: &mut String) -> Result<(), FrameError> {
    let json = serde_json::to_string(row).map_err(|e| FrameError::Encode(e.to_string()))?;
    out.push_str(&json);
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::{ChatUsage, Origin, encode};

    fn rows() -> Vec<ChatSummary> {
        let plain = ChatSummary {
            session_id: "s1".into(),
            project_slug: "web".into(),
            title: "fix the \"level\":0 parser, \\\"level\\\":0 too ✓\n".into(),
            ..ChatSummary::default()
        };
        let full = ChatSummary {
            session_id: "s2".into(),
            project_slug: "".into(),
            title: ",\"level\":0".into(),
            origin: Origin::Spawned,
            depth: 2,
            parent_session_id: Some("s1".into()),
            parent_project: Some("web".into()),
            created_at: Some("2025-01-01T00:00:00.000Z".into()),
            updated_at: Some("2025-01-02T00:00:00.000Z".into()),
            model: Some("claude-sonnet-4-5".into()),
            message_count: 9,
            running: true,
            unread: true,
            archived: true,
            starred: true,
            detached: true,
            fork: true,
            worktree: Some(crate::ChatWorktree {
                path: "/data/worktrees/web/0a1b2c3d".into(),
                prefix: "sub/".into(),
                branch: "paddock/0a1b2c3d".into(),
                base: "3f9a2c1".into(),
                target: "main".into(),
                created_at: None,
                ahead: 2,
                changed_files: vec!["a \"b\".txt".into()],
                ..Default::default()
            }),
            overlaps: vec![crate::ChatOverlap {
                session_id: "b".into(),
                files: vec!["a \"b\".txt".into()],
            }],
            trigger: Some("nightly".into()),
            tree_parent: Some("ignored".into()),
            level: 7,
            children: vec!["ignored".into()],
            usage: Some(ChatUsage {
                context_tokens: 1,
                context_limit: 2,
                input_tokens: 3,
                output_tokens: 4,
                cache_read_tokens: 5,
                cache_creation_tokens: 6,
                cost_usd: 0.161_006_999_999_999_98,
            }),
            queued: Some("next \"one\"".into()),
            interrupted: true,
            waiting_approval: true,
            waiting_process: true,
            failed: true,
            interrupted_reason: Some("killed".into()),
            parked: Some("later".into()),
            status: Some("Done: \u{1b}[1m".into()),
        };
        vec![plain, full]
    }

    fn placed(row: &ChatSummary, place: Place<'_>) -> ChatSummary {
        ChatSummary {
            tree_parent: place.tree_parent.map(str::to_owned),
            level: place.level,
            children: place.children.to_vec(),
            ..row.clone()
        }
    }

    #[test]
    fn a_placed_row_is_the_row_encoded_with_its_place() {
        let children = vec!["c\"1".to_owned(), "c2".to_owned()];
        let places = [
            Place::default(),
            Place {
                tree_parent: Some("p\\\"arent"),
                level: 4_000_000_000,
                children: &children,
            },
            Place {
                tree_parent: None,
                level: 1,
                children: &children[..1],
            },
        ];
        for row in rows() {
            let encoded = EncodedRow::new(&row);
            for place in places {
                let mut out = String::new();
                encoded.write_placed(place, &mut out);
                let want = serde_json::to_string(&placed(&row, place)).expect("encodes");
                assert_eq!(out, want);
            }
        }
    }

    #[test]
    fn a_chats_line_is_what_encode_writes_for_its_rows() {
        let rows = rows();
        let encoded: Vec<EncodedRow> = rows.iter().map(EncodedRow::new).collect();
        let answers = [
            Chats::default(),
            Chats {
                revision: Some(12),
                ..Chats::default()
            },
            Chats {
                revision: Some(13),
                delta: true,
                removed: vec!["gone".into()],
                after: vec![None, Some("s1".into())],
                chats: Vec::new(),
            },
        ];
        for answer in answers {
            let count = if answer == Chats::default() {
                0
            } else {
                rows.len()
            };
            let line = encode_chats(7, answer.clone(), count, |i, out| {
                encoded[i].write_placed(Place::default(), out);
                Ok(())
            })
            .expect("encodes");
            let whole = Chats {
                chats: rows[..count]
                    .iter()
                    .map(|r| placed(r, Place::default()))
                    .collect(),
                ..answer
            };
            let msg = ServerMessage::Control(ControlMessage::Response(Response {
                id: 7,
                outcome: Outcome::Ok(Reply::Chats(whole)),
            }));
            assert_eq!(line, encode(&msg).expect("encodes"));
        }
    }

    #[test]
    fn rows_in_the_answer_are_refused() {
        let answer = Chats {
            chats: rows(),
            ..Chats::default()
        };
        assert!(encode_chats(1, answer, 0, |_, _| Ok(())).is_err());
    }
}
