//! `paddock usage`: tokens, estimated cost and context-window use, per chat, per project and
//! per subtree, summed from the chat list (the daemon's index: no transcript is re-read).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use paddock_proto::{ChatSummary, ChatUsage};
use serde::Serialize;

use unicode_width::UnicodeWidthStr as _;

use super::{clean_title, one_line, project_label};

/// Sums of token counts and cost over some chats.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub chats: u64,
    /// Chats whose usage is known (the others have not run, or their transcript says nothing).
    pub measured: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_creation_tokens: u64,
    pub cost_usd: f64,
}

impl Totals {
    fn add(&mut self, u: Option<&ChatUsage>) {
        self.chats += 1;
        let Some(u) = u else { return };
        self.measured += 1;
        self.input_tokens += u.input_tokens;
        self.output_tokens += u.output_tokens;
        self.cache_read_tokens += u.cache_read_tokens;
        self.cache_creation_tokens += u.cache_creation_tokens;
        self.cost_usd += u.cost_usd;
    }

    /// Every token the chats moved through the model.
    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_creation_tokens
    }
}

/// The usage of a set of chats: the whole, per project, and per chat (costliest first).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub total: Totals,
    pub projects: BTreeMap<String, Totals>,
    pub chats: Vec<ChatLine>,
}

/// One chat's usage.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatLine {
    pub session_id: String,
    pub project_slug: String,
    pub title: String,
    pub archived: bool,
    /// A fork of another chat (the listing's `fork`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fork: bool,
    pub tokens: u64,
    pub cost_usd: f64,
    /// Context-window use after the latest message, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_percent: Option<u64>,
}

/// The chats of `root`'s subtree: the chat and every chat drawn under it (by `children`, else
/// by the recorded parent), in list order.
pub fn subtree<'a>(chats: &'a [ChatSummary], root: &str) -> Vec<&'a ChatSummary> {
    let mut under: HashMap<&str, Vec<&str>> = HashMap::new();
    for c in chats {
        if let Some(p) = c.tree_parent.as_deref().or(c.parent_session_id.as_deref()) {
            under.entry(p).or_default().push(c.session_id.as_str());
        }
    }
    let mut wanted: HashSet<&str> = HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if wanted.insert(id) {
            stack.extend(under.get(id).into_iter().flatten().copied());
        }
    }
    chats
        .iter()
        .filter(|c| wanted.contains(c.session_id.as_str()))
        .collect()
}

pub fn report<'a>(chats: impl IntoIterator<Item = &'a ChatSummary>) -> Report {
    let mut total = Totals::default();
    let mut projects: BTreeMap<String, Totals> = BTreeMap::new();
    let mut lines = Vec::new();
    for c in chats {
        total.add(c.usage.as_ref());
        projects
            .entry(c.project_slug.clone())
            .or_default()
            .add(c.usage.as_ref());
        let mut one = Totals::default();
        one.add(c.usage.as_ref());
        lines.push(ChatLine {
            session_id: c.session_id.clone(),
            project_slug: c.project_slug.clone(),
            title: clean_title(&c.title),
            archived: c.archived,
            fork: c.fork,
            tokens: one.tokens(),
            cost_usd: one.cost_usd,
            context_percent: c.usage.as_ref().and_then(super::usage_percent),
        });
    }
    lines.sort_by(|a, b| {
        b.cost_usd
            .total_cmp(&a.cost_usd)
            .then(b.tokens.cmp(&a.tokens))
    });
    Report {
        total,
        projects,
        chats: lines,
    }
}

/// `1.2M`, `34k`, `950`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3).replace(".0k", "k"),
        _ => format!("{:.1}M", n as f64 / 1e6).replace(".0M", "M"),
    }
}

/// `$0.42`, `$12.30`, `<$0.01`.
pub fn usd(x: f64) -> String {
    if x > 0.0 && x < 0.005 {
        "<$0.01".to_owned()
    } else {
        format!("${x:.2}")
    }
}

/// The report as text: totals, then one line per project, then the costliest `top` chats
/// (titles cut to 60 characters, or to fit `width`, a terminal's, when narrower).
pub fn usage_text(r: &Report, top: usize, ids: super::IdForm, width: Option<usize>) -> String {
    let mut out = String::new();
    let t = &r.total;
    let _ = writeln!(
        out,
        "{} chat{} ({} with usage): {} tokens (in {}, out {}, cache read {}, cache write {}), about {}",
        t.chats,
        if t.chats == 1 { "" } else { "s" },
        t.measured,
        tokens(t.tokens()),
        tokens(t.input_tokens),
        tokens(t.output_tokens),
        tokens(t.cache_read_tokens),
        tokens(t.cache_creation_tokens),
        usd(t.cost_usd)
    );
    if r.projects.len() > 1 {
        let _ = writeln!(out, "\nPROJECT          CHATS    TOKENS      COST");
        let mut projects: Vec<(&String, &Totals)> = r.projects.iter().collect();
        projects.sort_by(|a, b| b.1.cost_usd.total_cmp(&a.1.cost_usd));
        for (slug, p) in projects {
            let _ = writeln!(
                out,
                "{:<15}  {:>5}  {:>8}  {:>8}",
                one_line(&project_label(slug), 15),
                p.chats,
                tokens(p.tokens()),
                usd(p.cost_usd)
            );
        }
    }
    if !r.chats.is_empty() && top > 0 {
        let listed: Vec<&str> = r
            .chats
            .iter()
            .take(top)
            .map(|c| c.session_id.as_str())
            .collect();
        let shown = ids.show(&listed);
        // Whole ids (piped) are wider than the short ones the header was made for.
        let id_width = shown.iter().map(|id| id.width()).max().unwrap_or(0).max(8);
        let _ = writeln!(
            out,
            "\n{:<id_width$}  {:>7}  {:>8}  {:<4}  TITLE",
            "SESSION", "TOKENS", "COST", "CTX"
        );
        for (c, id) in r.chats.iter().take(top).zip(shown) {
            let ctx = c
                .context_percent
                .map_or_else(|| "  -".to_owned(), |p| format!("{p:>2}%"));
            let head = format!(
                "{id:<id_width$}  {:>7}  {:>8}  {ctx:<4}  ",
                tokens(c.tokens),
                usd(c.cost_usd)
            );
            let marks = format!(
                "{}{}",
                // Unless its title says so already ("fork of …").
                if c.fork && !c.title.starts_with("fork of ") {
                    " (fork)"
                } else {
                    ""
                },
                if c.archived { " (archived)" } else { "" }
            );
            let mut title = one_line(&c.title, 60);
            if let Some(width) = width {
                let room = width.saturating_sub(head.width() + marks.width());
                title = super::fit_width(&title, room.max(super::chats::TITLE_AT_LEAST), "…");
            }
            let _ = writeln!(out, "{head}{title}{marks}");
        }
        if r.chats.len() > top {
            let _ = writeln!(out, "… {} more (--top N shows more)", r.chats.len() - top);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::Origin;

    fn chat(id: &str, project: &str, parent: Option<&str>, cost: Option<f64>) -> ChatSummary {
        ChatSummary {
            session_id: id.into(),
            project_slug: project.into(),
            title: format!("chat {id}"),
            origin: Origin::Human,
            depth: 0,
            parent_session_id: parent.map(str::to_owned),
            parent_project: None,
            created_at: None,
            updated_at: None,
            model: None,
            message_count: 2,
            running: false,
            unread: false,
            archived: false,
            starred: false,
            detached: false,
            fork: false,
            worktree: None,
            overlaps: vec![],
            trigger: None,
            tree_parent: parent.map(str::to_owned),
            level: 0,
            children: Vec::new(),
            usage: cost.map(|c| ChatUsage {
                context_tokens: 50_000,
                context_limit: 200_000,
                input_tokens: 1_000,
                output_tokens: 2_000,
                cache_read_tokens: 10_000,
                cache_creation_tokens: 500,
                cost_usd: c,
            }),
            queued: None,
            interrupted: false,
            interrupted_reason: None,
            waiting_approval: false,
            waiting_process: false,
            failed: false,
            parked: None,
            status: None,
        }
    }

    #[test]
    fn totals_per_project_and_the_costliest_chats_first() {
        let chats = vec![
            chat("aaaaaaaa-1", "web", None, Some(0.5)),
            ChatSummary {
                fork: true,
                ..chat("bbbbbbbb-2", "web", Some("aaaaaaaa-1"), Some(1.25))
            },
            chat("cccccccc-3", "", None, None),
        ];
        let r = report(&chats);
        assert_eq!(r.total.chats, 3);
        assert_eq!(r.total.measured, 2);
        assert_eq!(r.total.tokens(), 27_000);
        assert!((r.total.cost_usd - 1.75).abs() < 1e-9);
        assert_eq!(r.projects["web"].chats, 2);
        assert_eq!(r.chats[0].session_id, "bbbbbbbb-2");
        assert_eq!(r.chats[0].context_percent, Some(25));
        let text = usage_text(&r, 2, crate::format::IdForm::Short, None);
        assert!(
            text.starts_with("3 chats (2 with usage): 27k tokens (in 2k, out 4k, cache read 20k, cache write 1k), about $1.75\n"),
            "{text}"
        );
        assert!(
            text.contains("web                  2       27k     $1.75"),
            "{text}"
        );
        assert!(
            text.contains("bbbbbbbb    13.5k     $1.25  25%   chat bbbbbbbb-2 (fork)\n"),
            "{text}"
        );
        assert!(text.ends_with("… 1 more (--top N shows more)\n"), "{text}");
    }

    /// Piped, ids are whole: the header's columns stand over the rows' (from the hand walk:
    /// it was laid out for 8-character ids).
    #[test]
    fn whole_ids_keep_the_columns_under_their_heads() {
        let chats = vec![chat(
            "aaaaaaaa-1111-2222-3333-444444444444",
            "web",
            None,
            Some(0.5),
        )];
        let text = usage_text(&report(&chats), 5, crate::format::IdForm::Whole, None);
        let head = text
            .lines()
            .find(|l| l.starts_with("SESSION"))
            .unwrap_or_default();
        let row = text
            .lines()
            .find(|l| l.starts_with("aaaaaaaa"))
            .unwrap_or_default();
        let end_of = |line: &str, word: &str| line.find(word).map(|at| at + word.len());
        assert_eq!(end_of(head, "TOKENS"), end_of(row, "13.5k"), "{text}");
        assert_eq!(end_of(head, "COST"), end_of(row, "$0.50"), "{text}");
    }

    /// One figure for a chat's context use in every view (from the hand walk: `ls` and the
    /// tree said 7%, `usage` and the chat's header 6%, for 13,739 of 200,000 tokens).
    #[test]
    fn context_use_is_one_rounded_figure_everywhere() {
        let mut c = chat("a", "web", None, Some(0.1));
        if let Some(u) = c.usage.as_mut() {
            u.context_tokens = 13_739;
        }
        assert_eq!(crate::format::context_percent(&c), Some(7));
        assert_eq!(report([&c]).chats[0].context_percent, Some(7));
    }

    #[test]
    fn a_subtree_is_the_chat_and_everything_under_it() {
        let chats = vec![
            chat("a", "web", None, Some(1.0)),
            chat("b", "web", Some("a"), Some(1.0)),
            chat("c", "web", Some("b"), Some(1.0)),
            chat("d", "web", None, Some(1.0)),
        ];
        let ids: Vec<&str> = subtree(&chats, "b")
            .iter()
            .map(|c| c.session_id.as_str())
            .collect();
        assert_eq!(ids, ["b", "c"]);
        assert_eq!(subtree(&chats, "a").len(), 3);
        assert!(subtree(&chats, "zzz").is_empty());
    }

    #[test]
    fn numbers_read_short() {
        assert_eq!(tokens(950), "950");
        assert_eq!(tokens(34_000), "34k");
        assert_eq!(tokens(1_250_000), "1.2M");
        assert_eq!(usd(0.001), "<$0.01");
        assert_eq!(usd(12.3), "$12.30");
        assert_eq!(usd(0.0), "$0.00");
    }
}
