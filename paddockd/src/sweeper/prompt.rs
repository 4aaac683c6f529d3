//! The tool-less contract: the prompt that asks for the three curated files between exact
//! markers, and the strict parser of the reply (reference §6).
//!
//! The reply must hold each of [`OVERVIEW`], [`CHANGELOG`], [`CLAUDE`] and [`END`] exactly once,
//! alone on its line, in that order. Each section is the file's complete new text, or the
//! literal `NOCHANGE` (an empty section counts as `NOCHANGE` too). Anything before the first
//! marker or after the last (a preamble, a code fence) is ignored. A reply that repeats the
//! prompt's instructions (whose template holds the markers too) is no answer. A reply that
//! breaks any of this is refused as a whole, so nothing of it is written.

use crate::config::curation::{BYTES_PER_TOKEN, Budgets};

pub const OVERVIEW: &str = "<<<OVERVIEW>>>";
pub const CHANGELOG: &str = "<<<CHANGELOG>>>";
pub const CLAUDE: &str = "<<<CLAUDE>>>";
pub const END: &str = "<<<END>>>";
/// A section that leaves its file as it is.
pub const NOCHANGE: &str = "NOCHANGE";
/// The heading of the prompt's instructions: a reply holding it repeats the prompt.
const RETURN_HEADING: &str = "=== WHAT TO RETURN ===";

/// What the prompt is built from.
#[derive(Debug, Clone)]
pub struct PromptInput<'a> {
    /// `""` is the root workspace.
    pub slug: &'a str,
    /// The project's CLAUDE.md belongs to its own repository: the sweeper must not write it.
    pub repo_backed: bool,
    /// Today's date (`YYYY-MM-DD`), for the CHANGELOG heading.
    pub today: &'a str,
    pub digest: &'a str,
    pub overview: &'a str,
    pub changelog: &'a str,
    /// The body of CLAUDE.md's managed section.
    pub claude_section: &'a str,
    /// The budgets this sweep enforces (what is over them is cut when written).
    pub budgets: Budgets,
}

/// The curation prompt, given to `claude -p` on stdin.
pub fn build(input: &PromptInput<'_>) -> String {
    let name = if input.slug.is_empty() {
        "the root workspace".to_owned()
    } else {
        format!("the project \"{}\"", input.slug)
    };
    let or_none = |s: &str, none: &str| {
        if s.trim().is_empty() {
            none.to_owned()
        } else {
            s.trim_end().to_owned()
        }
    };
    let today = input.today;
    let b = input.budgets;
    let budget = |tokens: usize, bytes: usize| {
        format!("{tokens} tokens (about {} KB)", bytes.div_ceil(1024))
    };
    let overview_budget = budget(b.overview_tokens, b.overview_bytes());
    let changelog_budget = budget(b.changelog_tokens, b.changelog_bytes());
    let claude_budget = budget(b.claudemd_tokens, b.claudemd_bytes());
    let claude_task = if input.repo_backed {
        format!(
            "This project's CLAUDE.md belongs to its own repository and is not yours to change: \
             the CLAUDE section must be exactly {NOCHANGE}."
        )
    } else {
        format!(
            "The complete new text of the curated section of CLAUDE.md (markdown, without any \
             marker comments; start it with the heading `## Curated notes`). Only durable facts \
             about what the project is and how work on it is done: key decisions, conventions, \
             constraints. No current state, tasks or history (those belong to OVERVIEW and \
             CHANGELOG). Fold duplicates into one, drop what is stale, stay under {claude_budget}. \
             If nothing durable changed, write exactly {NOCHANGE}."
        )
    };
    let sections = [
        format!(
            "You curate three context files of {name} from its recent chats. Every new chat \
             reads them, so they must be accurate, compact and current. You are shown each file \
             as it is now. For each one you return either its complete new text, which replaces \
             the file, or the single word {NOCHANGE}. Never return a fragment meant to be \
             appended: whatever you return is the whole file.\n\
             \n\
             Budgets (a token counts as {BYTES_PER_TOKEN} bytes; a file over its budget is cut when \
             written, so stay under it): OVERVIEW.md {overview_budget}; CHANGELOG.md \
             {changelog_budget}; the curated section of CLAUDE.md {claude_budget}."
        ),
        format!(
            "=== RECENT CHAT ACTIVITY (newest chat first) ===\n{}",
            or_none(input.digest, "(no readable chats)")
        ),
        format!(
            "=== CURRENT OVERVIEW.md ===\n{}",
            or_none(input.overview, "(none yet: you write the first one)")
        ),
        format!(
            "=== CURRENT CHANGELOG.md ===\n{}",
            or_none(input.changelog, "(empty)")
        ),
        if input.repo_backed {
            "=== CLAUDE.md ===\n(belongs to the project's repository; not shown)".to_owned()
        } else {
            format!(
                "=== CURRENT CURATED SECTION OF CLAUDE.md ===\n{}",
                or_none(input.claude_section, "(none yet)")
            )
        },
        format!(
            "{RETURN_HEADING}\n\
             Do not use any tools. Reply with only the four marker lines below, each alone on \
             its line and spelled exactly as shown, with each file's text after its marker; \
             nothing before the first marker, nothing after the last.\n\
             \n\
             {OVERVIEW}\n\
             The complete new OVERVIEW.md: a concise snapshot of the project as it is now, for \
             an assistant starting a new chat: what the project is, key facts and decisions, \
             open questions, next steps. Not a history of the chats. Stay under {overview_budget}. \
             {NOCHANGE} only if the current one is accurate and complete.\n\
             {CHANGELOG}\n\
             The complete new CHANGELOG.md, newest first. If the activity holds a genuinely new, \
             user-visible change, add one bullet under a `## {today}` heading at the top (reuse \
             that heading if it is already there). Keep the existing entries as they are, \
             merging near-duplicates; drop the oldest entries to stay under {changelog_budget}. \
             If the activity is already recorded or changed nothing notable, write {NOCHANGE}.\n\
             {CLAUDE}\n\
             {claude_task}\n\
             {END}\n\
             \n\
             Be factual and terse. Record only what the activity supports. Do not record how to \
             run things on this machine (ports, local URLs, dev servers)."
        ),
    ];
    sections.join("\n\n")
}

/// The three sections of a reply; `None` leaves that file as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub overview: Option<String>,
    pub changelog: Option<String>,
    pub claude: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("the reply is empty")]
    Empty,
    #[error("the marker {0} is missing")]
    Missing(&'static str),
    #[error("the marker {0} appears more than once")]
    Repeated(&'static str),
    #[error("the markers are out of order (expected {OVERVIEW}, {CHANGELOG}, {CLAUDE}, {END})")]
    Order,
    #[error("the reply repeats the prompt's instructions instead of answering them")]
    Echo,
}

/// Parses a reply strictly (see the module comment).
pub fn parse(text: &str) -> Result<Reply, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().any(|l| l.trim() == RETURN_HEADING) {
        return Err(ParseError::Echo);
    }
    let mut at = [0usize; 4];
    for (slot, marker) in [OVERVIEW, CHANGELOG, CLAUDE, END].into_iter().enumerate() {
        let found: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].trim() == marker)
            .collect();
        at[slot] = match found.as_slice() {
            [] => return Err(ParseError::Missing(marker)),
            [one] => *one,
            _ => return Err(ParseError::Repeated(marker)),
        };
    }
    if !at.windows(2).all(|w| w[0] < w[1]) {
        return Err(ParseError::Order);
    }
    let section = |from: usize, to: usize| -> Option<String> {
        let body = lines[from + 1..to].join("\n");
        let body = body.trim();
        (!body.is_empty() && body != NOCHANGE).then(|| body.to_owned())
    };
    Ok(Reply {
        overview: section(at[0], at[1]),
        changelog: section(at[1], at[2]),
        claude: section(at[2], at[3]),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn reply(overview: &str, changelog: &str, claude: &str) -> String {
        format!("{OVERVIEW}\n{overview}\n{CHANGELOG}\n{changelog}\n{CLAUDE}\n{claude}\n{END}\n")
    }

    #[test]
    fn parses_the_three_sections_and_nochange() {
        let r = parse(&reply("# Overview\n\nA thing.", "NOCHANGE", "  \n")).unwrap();
        assert_eq!(r.overview.as_deref(), Some("# Overview\n\nA thing."));
        assert_eq!(r.changelog, None, "NOCHANGE leaves the file alone");
        assert_eq!(r.claude, None, "an empty section too");
        // A preamble, a code fence and surrounding blanks are tolerated.
        let fenced = format!(
            "Here you go:\n```\n{}```\n",
            reply("o", "## 2026-01-01\n- x", " NOCHANGE ")
        );
        let r = parse(&fenced).unwrap();
        assert_eq!(r.overview.as_deref(), Some("o"));
        assert_eq!(r.changelog.as_deref(), Some("## 2026-01-01\n- x"));
        assert_eq!(r.claude, None);
    }

    #[test]
    fn refuses_missing_repeated_and_misordered_markers() {
        assert_eq!(parse("   "), Err(ParseError::Empty));
        assert_eq!(
            parse("I updated the files for you."),
            Err(ParseError::Missing(OVERVIEW))
        );
        let no_end = format!("{OVERVIEW}\no\n{CHANGELOG}\nc\n{CLAUDE}\nx\n");
        assert_eq!(parse(&no_end), Err(ParseError::Missing(END)));
        let no_claude = format!("{OVERVIEW}\no\n{CHANGELOG}\nc\n{END}\n");
        assert_eq!(parse(&no_claude), Err(ParseError::Missing(CLAUDE)));
        let twice = format!("{}{}", reply("a", "b", "c"), reply("a", "b", "c"));
        assert_eq!(parse(&twice), Err(ParseError::Repeated(OVERVIEW)));
        let swapped = format!("{CHANGELOG}\nc\n{OVERVIEW}\no\n{CLAUDE}\nx\n{END}\n");
        assert_eq!(parse(&swapped), Err(ParseError::Order));
        // A reply that repeats the prompt (markers and all) is not an answer.
        let echo = format!(
            "echo: {}",
            build(&PromptInput {
                slug: "demo",
                repo_backed: false,
                today: "2026-02-03",
                digest: "",
                overview: "",
                changelog: "",
                claude_section: "",
                budgets: Budgets::default(),
            })
        );
        assert_eq!(parse(&echo), Err(ParseError::Echo));
        // A marker inside a line is not a marker.
        let inline = format!("see {OVERVIEW} here\n{CHANGELOG}\nc\n{CLAUDE}\nx\n{END}\n");
        assert_eq!(parse(&inline), Err(ParseError::Missing(OVERVIEW)));
    }

    #[test]
    fn the_prompt_carries_the_contract_and_the_inputs() {
        let input = PromptInput {
            slug: "demo",
            repo_backed: false,
            today: "2026-02-03",
            digest: "user: build the thing",
            overview: "# Old overview",
            changelog: "## 2026-01-01\n- started",
            claude_section: "## Curated notes\n- uses Rust",
            budgets: Budgets {
                overview_tokens: 1500,
                changelog_tokens: 8000,
                claudemd_tokens: 6000,
            },
        };
        let p = build(&input);
        for want in [
            OVERVIEW,
            CHANGELOG,
            CLAUDE,
            END,
            NOCHANGE,
            "Do not use any tools",
            "## 2026-02-03",
            "user: build the thing",
            "# Old overview",
            "- started",
            "- uses Rust",
            "project \"demo\"",
            // The budgets it enforces, in tokens and bytes.
            "OVERVIEW.md 1500 tokens (about 6 KB)",
            "CHANGELOG.md 8000 tokens (about 32 KB)",
            "CLAUDE.md 6000 tokens (about 24 KB)",
            "Stay under 1500 tokens",
        ] {
            assert!(p.contains(want), "{want} missing from the prompt");
        }
        // Each marker line once, in order: the template a model copies.
        let lines: Vec<&str> = p.lines().collect();
        let pos = |m: &str| lines.iter().position(|l| *l == m).unwrap();
        assert!(pos(OVERVIEW) < pos(CHANGELOG) && pos(CHANGELOG) < pos(CLAUDE));
        assert!(pos(CLAUDE) < pos(END));
        // A repo-backed project is told to leave CLAUDE.md alone, and is not shown it.
        let repo = build(&PromptInput {
            repo_backed: true,
            slug: "",
            ..input
        });
        assert!(repo.contains("root workspace"));
        assert!(!repo.contains("- uses Rust"));
        assert!(repo.contains(&format!("must be exactly {NOCHANGE}")));
    }
}
