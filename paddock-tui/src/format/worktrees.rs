//! `paddock worktree ls|merge|rebase|discard|prune` as text.

use std::fmt::Write as _;

use paddock_proto::{
    WorktreeDiscarded, WorktreeEntry, WorktreeMerged, WorktreePruned, WorktreeRebased,
};

use super::{one_line, project_label};

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// Where an entry's work goes: its target branch, or its parent chat.
fn target_of(e: &WorktreeEntry) -> String {
    match &e.worktree.target_chat {
        Some(parent) => format!("chat {}", short(parent)),
        None if e.worktree.target.is_empty() => "(no branch)".to_owned(),
        None => e.worktree.target.clone(),
    }
}

fn marks(e: &WorktreeEntry) -> String {
    let mut marks = Vec::new();
    if e.orphan {
        marks.push("orphan");
    }
    if e.worktree.missing {
        marks.push("missing");
    }
    if e.worktree.merged.is_some() {
        marks.push("merged");
    }
    if !e.overlaps.is_empty() {
        marks.push("overlaps");
    }
    marks.join(",")
}

/// One line per worktree chat, under a header; or that there are none.
pub fn worktree_list(entries: &[WorktreeEntry], orphans: bool) -> String {
    if entries.is_empty() {
        return if orphans {
            "No orphan worktrees.\n".to_owned()
        } else {
            "No worktree chats. `paddock send --worktree` starts one.\n".to_owned()
        };
    }
    let rows: Vec<[String; 8]> = entries
        .iter()
        .map(|e| {
            [
                short(&e.session_id).to_owned(),
                project_label(&e.project_slug).into_owned(),
                e.worktree.branch.clone(),
                target_of(e),
                format!("+{}/-{}", e.worktree.ahead, e.worktree.behind),
                e.worktree.changed_files.len().to_string(),
                marks(e),
                e.title
                    .as_deref()
                    .map_or_else(|| "(deleted chat)".to_owned(), |t| one_line(t, 60)),
            ]
        })
        .collect();
    let header = [
        "SESSION",
        "PROJECT",
        "BRANCH",
        "TARGET",
        "AHEAD/BEHIND",
        "FILES",
        "STATE",
        "TITLE",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                let _ = write!(text, "{cell:w$}  ");
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut out, &header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&mut out, &cells);
    }
    overlap_lines(&mut out, entries);
    out
}

/// Each pair of chats that changed the same files, once, with the files.
fn overlap_lines(out: &mut String, entries: &[WorktreeEntry]) {
    let mut said = std::collections::BTreeSet::new();
    for e in entries {
        for o in &e.overlaps {
            let (a, b) = if e.session_id < o.session_id {
                (&e.session_id, &o.session_id)
            } else {
                (&o.session_id, &e.session_id)
            };
            if !said.insert((a.clone(), b.clone())) {
                continue;
            }
            if said.len() == 1 {
                out.push_str("\nChanged by both (merging both may conflict):\n");
            }
            let _ = writeln!(
                out,
                "  {} and {}: {}",
                short(a),
                short(b),
                o.files.join(", ")
            );
        }
    }
}

/// The project status's list of worktree chats (after the checkout's own files).
pub fn worktree_summary(entries: &[WorktreeEntry]) -> String {
    let mut out = format!("\nWorktree chats ({}):\n", entries.len());
    for e in entries {
        let n = e.worktree.changed_files.len();
        let _ = writeln!(
            out,
            "  {} {} -> {}: {} ahead, {} behind, {n} changed file{}{}",
            short(&e.session_id),
            e.worktree.branch,
            target_of(e),
            e.worktree.ahead,
            e.worktree.behind,
            if n == 1 { "" } else { "s" },
            match marks(e).as_str() {
                "" => String::new(),
                m => format!(" ({m})"),
            }
        );
    }
    out
}

fn file_lines(out: &mut String, files: &[String]) {
    for f in files {
        let _ = writeln!(out, "  {f}");
    }
}

/// What `paddock worktree merge` did.
pub fn worktree_merged(m: &WorktreeMerged) -> String {
    let mut out = String::new();
    if let Some(c) = &m.committed {
        let _ = writeln!(
            out,
            "Committed the chat's uncommitted work on its branch ({}).",
            short(c).get(..7).unwrap_or(c)
        );
    }
    let n = m.files.len();
    let _ = writeln!(
        out,
        "{} chat {} into {} as {} ({n} file{}){}:",
        if m.squash { "Squashed" } else { "Merged" },
        short(&m.session_id),
        m.into,
        m.commit.get(..7).unwrap_or(&m.commit),
        if n == 1 { "" } else { "s" },
        match &m.checkout {
            Some(dir) => format!("; {dir} is updated"),
            None => "; the branch moved (no checkout has it)".to_owned(),
        }
    );
    file_lines(&mut out, &m.files);
    out
}

/// What `paddock worktree rebase` did.
pub fn worktree_rebased(r: &WorktreeRebased) -> String {
    let mut out = String::new();
    if let Some(c) = &r.committed {
        let _ = writeln!(
            out,
            "Committed the chat's uncommitted work on its branch ({}).",
            c.get(..7).unwrap_or(c)
        );
    }
    let _ = writeln!(
        out,
        "Chat {} is up to date with {} ({}).",
        short(&r.session_id),
        r.onto,
        r.base.get(..7).unwrap_or(&r.base)
    );
    out
}

/// What `paddock worktree discard` removed.
pub fn worktree_discarded(d: &WorktreeDiscarded) -> String {
    let mut out = format!(
        "Removed chat {}'s worktree {} and its branch {}.\n",
        short(&d.session_id),
        d.path,
        d.branch
    );
    if !d.lost.is_empty() {
        let _ = writeln!(out, "Its unmerged work in these files is gone:");
        file_lines(&mut out, &d.lost);
    }
    out
}

/// What `paddock worktree prune` removed and kept.
pub fn worktree_pruned(p: &WorktreePruned) -> String {
    if p.removed.is_empty() && p.kept.is_empty() {
        return "No orphan worktrees.\n".to_owned();
    }
    let mut out = String::new();
    for e in &p.removed {
        let _ = writeln!(
            out,
            "removed {} {} ({})",
            short(&e.session_id),
            e.worktree.branch,
            e.worktree.path
        );
    }
    for k in &p.kept {
        let _ = writeln!(
            out,
            "kept {} {}: {}",
            short(&k.entry.session_id),
            k.entry.worktree.branch,
            k.reason
        );
    }
    out
}

/// The question `paddock worktree discard` asks on a terminal.
pub fn discard_question(e: &WorktreeEntry) -> String {
    format!(
        "remove chat {}'s worktree {} and its branch {} ({} changed file{})? [y/N] ",
        short(&e.session_id),
        e.worktree.path,
        e.worktree.branch,
        e.worktree.changed_files.len(),
        if e.worktree.changed_files.len() == 1 {
            ""
        } else {
            "s"
        }
    )
}
