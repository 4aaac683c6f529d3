//! The daemon's changes to a `project.toml` as edits of the document the user wrote
//! (`toml_edit`): only the keys and tables being changed are touched, so comments, blank
//! lines, the order of keys and tables, and keys this version does not know survive.
//!
//! [`super::Projects::edit_file`] reads, edits, checks and writes; the functions here are the
//! edits themselves.

use paddock_proto::TriggerSpec;
use toml_edit::{DocumentMut, Item, Table, TableLike, Value};

#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("triggers in project.toml is not a table; fix it by hand first")]
    TriggersNotATable,
    #[error("cannot write the trigger: {0}")]
    Serialize(String),
}

/// Adds `[triggers.NAME]`, or replaces the trigger of that name where it stands: values that
/// do not change keep their formatting and comments, changed ones keep their comments, keys
/// the new spec does not have go. A file whose triggers are written inline (`triggers = {..}`
/// or `NAME = {..}` under `[triggers]`) gets the new entry inline too.
pub fn set_trigger(doc: &mut DocumentMut, name: &str, spec: &TriggerSpec) -> Result<(), EditError> {
    let mut fresh = spec_table(spec)?;
    // A new table goes after every other one.
    let mut positions = Vec::new();
    positions_under(doc.as_table(), &mut positions);
    fresh.set_position(Some(positions.into_iter().max().unwrap_or(0) + 1));
    let root = doc.as_table_mut();
    if !root.contains_key("triggers") {
        let mut triggers = Table::new();
        // No bare `[triggers]` header: just `[triggers.NAME]`.
        triggers.set_implicit(true);
        root.insert("triggers", Item::Table(triggers));
    }
    let Some(item) = root.get_mut("triggers") else {
        return Err(EditError::TriggersNotATable);
    };
    let inline = item.is_inline_table();
    let Some(triggers) = item.as_table_like_mut() else {
        return Err(EditError::TriggersNotATable);
    };
    match triggers.get_mut(name) {
        Some(old) => match old.as_table_like_mut() {
            Some(old) => update_in_place(old, &fresh),
            None => *old = as_item(fresh, inline),
        },
        None if inline => {
            // `{ a = {..} }` + b: the space before `}` stays last.
            let mut new = Value::InlineTable(fresh.into_inline_table());
            if let Some(table) = item.as_inline_table_mut()
                && let Some((_, last)) = table.iter_mut().last()
            {
                let suffix = last.decor().suffix().cloned();
                last.decor_mut().set_suffix("");
                if let Some(suffix) = suffix {
                    new.decor_mut().set_suffix(suffix);
                }
            }
            if let Some(table) = item.as_inline_table_mut() {
                table.insert(name, new);
            }
        }
        None => {
            triggers.insert(name, Item::Table(fresh));
        }
    }
    Ok(())
}

/// Removes a trigger; whether there was one. A `triggers` table left empty goes too. Comments
/// above the removed header that a blank line sets apart from it (a banner, the file's own
/// header comment) are not the trigger's: they move to the table that follows, or the end.
pub fn remove_trigger(doc: &mut DocumentMut, name: &str) -> bool {
    let root = doc.as_table_mut();
    let Some(triggers) = root.get_mut("triggers").and_then(Item::as_table_like_mut) else {
        return false;
    };
    let removed = triggers.remove(name);
    let now_empty = triggers.is_empty();
    let emptied = if now_empty {
        root.remove("triggers")
    } else {
        None
    };
    for item in [removed.as_ref(), emptied.as_ref()].into_iter().flatten() {
        keep_detached_comments(doc, item);
    }
    removed.is_some()
}

/// Sets (`Some(Some(item))`), removes (`Some(None)`) or leaves (`None`) a top-level key. A
/// value replaced keeps its comments and place; a new key goes after the other top-level keys.
pub fn set_key(doc: &mut DocumentMut, key: &str, change: Option<Option<Item>>) {
    let Some(change) = change else {
        return;
    };
    let root = doc.as_table_mut();
    let Some(new) = change else {
        root.remove(key);
        return;
    };
    if let Some(old) = root.get_mut(key).and_then(Item::as_value_mut)
        && let Item::Value(mut v) = new.clone()
    {
        *v.decor_mut() = old.decor().clone();
        *old = v;
        return;
    }
    let first_key = root
        .iter()
        .all(|(k, v)| k == key || v.is_table() || v.is_array_of_tables());
    root.insert(key, new);
    if first_key {
        hoist_header_comment(doc);
    }
}

/// Adds `tool` to `allowed_tools` (creating the list); whether it was not there yet. A value
/// that is not a list is left alone (the file would not have loaded).
pub fn allow_tool(doc: &mut DocumentMut, tool: &str) -> bool {
    add_to_list(doc, "allowed_tools", tool)
}

/// Removes `rule` from `allowed_tools` (exactly as written); whether it was there. The list
/// stays, empty, when it was the last rule (the file keeps its place for the next one).
pub fn disallow_tool(doc: &mut DocumentMut, rule: &str) -> bool {
    remove_from_list(doc, "allowed_tools", rule)
}

/// Adds `entry` to the top-level list `key` (creating the list); whether it was not there
/// yet. A value that is not a list is left alone (the file would not have loaded).
pub fn add_to_list(doc: &mut DocumentMut, key: &str, entry: &str) -> bool {
    let root = doc.as_table_mut();
    let Some(item) = root.get_mut(key) else {
        let first_key = root
            .iter()
            .all(|(_, v)| v.is_table() || v.is_array_of_tables());
        root.insert(key, toml_edit::value(toml_edit::Array::from_iter([entry])));
        if first_key {
            hoist_header_comment(doc);
        }
        return true;
    };
    let Some(list) = item.as_array_mut() else {
        return false;
    };
    if list.iter().any(|v| v.as_str() == Some(entry)) {
        return false;
    }
    // Laid out like the entries before it: on a line of its own in a list written one per line.
    let prefix = list
        .iter()
        .last()
        .and_then(|v| v.decor().prefix())
        .and_then(|p| p.as_str())
        .map(|p| match p.rfind('\n') {
            Some(at) => format!("\n{}", &p[at + 1..]),
            None if list.len() >= 2 => p.to_owned(),
            None => " ".to_owned(),
        });
    let mut v = Value::from(entry);
    if let Some(prefix) = prefix {
        v.decor_mut().set_prefix(prefix);
    }
    list.push_formatted(v);
    true
}

/// Removes `entry` from the top-level list `key` (exactly as written); whether it was there.
/// The list stays, empty, when it was the last entry (the file keeps its place for the next).
pub fn remove_from_list(doc: &mut DocumentMut, key: &str, entry: &str) -> bool {
    let Some(list) = doc.as_table_mut().get_mut(key).and_then(Item::as_array_mut) else {
        return false;
    };
    let before = list.len();
    list.retain(|v| v.as_str() != Some(entry));
    list.len() != before
}

/// The spec as a table, its keys in the order `TriggerSpec` declares them.
fn spec_table(spec: &TriggerSpec) -> Result<Table, EditError> {
    let text = toml::to_string(spec).map_err(|e| EditError::Serialize(e.to_string()))?;
    let doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| EditError::Serialize(e.to_string()))?;
    let mut table = doc.into_table();
    table.set_position(None);
    table.decor_mut().clear();
    Ok(table)
}

fn as_item(table: Table, inline: bool) -> Item {
    if inline {
        Item::Value(Value::InlineTable(table.into_inline_table()))
    } else {
        Item::Table(table)
    }
}

/// Makes `old` hold what `fresh` holds, touching only what differs.
fn update_in_place(old: &mut dyn TableLike, fresh: &Table) {
    let stale: Vec<String> = old
        .iter()
        .map(|(k, _)| k.to_owned())
        .filter(|k| !fresh.contains_key(k))
        .collect();
    for k in stale {
        old.remove(&k);
    }
    for (k, new) in fresh.iter() {
        let Some(new) = new.as_value() else { continue };
        match old.get_mut(k) {
            Some(Item::Value(was)) if same(was, new) => {}
            Some(slot) => {
                let mut new = new.clone();
                if let Some(was) = slot.as_value() {
                    *new.decor_mut() = was.decor().clone();
                }
                // Replacing the item, not the entry, keeps the key's own comments.
                *slot = Item::Value(new);
            }
            None => {
                let mut new = new.clone();
                new.decor_mut().clear();
                old.insert(k, Item::Value(new));
            }
        }
    }
}

/// Whether two values are the same TOML value, however they are written.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => a.value() == b.value(),
        (Value::Integer(a), Value::Integer(b)) => a.value() == b.value(),
        (Value::Float(a), Value::Float(b)) => a.value().to_bits() == b.value().to_bits(),
        (Value::Boolean(a), Value::Boolean(b)) => a.value() == b.value(),
        (Value::Datetime(a), Value::Datetime(b)) => a.value() == b.value(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(a, b)| same(a, b))
        }
        (Value::InlineTable(a), Value::InlineTable(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

/// The part of a table header's prefix up to and including its last blank line: comments
/// that stand apart from the header. `None` when it holds no comment.
fn detached_part(prefix: &str) -> Option<(&str, &str)> {
    let mut split = None;
    let mut start = 0;
    for line in prefix.split_inclusive('\n') {
        let end = start + line.len();
        if line.ends_with('\n') && line.trim().is_empty() {
            split = Some(end);
        }
        start = end;
    }
    let at = split?;
    let (detached, rest) = prefix.split_at(at);
    detached.contains('#').then_some((detached, rest))
}

/// A table header's prefix as text (parsed documents hold it as text, new tables hold none).
fn prefix_of(table: &Table) -> &str {
    table
        .decor()
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or("")
}

/// Moves the comments set apart above a removed table to the table that followed it, or to
/// the end of the document.
fn keep_detached_comments(doc: &mut DocumentMut, removed: &Item) {
    let Some(table) = removed.as_table() else {
        return;
    };
    let (Some(position), Some((detached, _))) = (table.position(), detached_part(prefix_of(table)))
    else {
        return;
    };
    let detached = detached.to_owned();
    let mut positions = Vec::new();
    positions_under(doc.as_table(), &mut positions);
    let next = positions.into_iter().filter(|p| *p > position).min();
    match next.and_then(|p| table_at(doc.as_table_mut(), p)) {
        Some(next) => {
            // The detached part ends with a blank line: it stands for the gap there was.
            let rest = without_leading_blank_lines(prefix_of(next));
            next.decor_mut().set_prefix(format!("{detached}{rest}"));
        }
        None => {
            let body = doc.to_string();
            let gap = if body.is_empty() || body.ends_with("\n\n") {
                ""
            } else if body.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            let trailing = doc.trailing().as_str().unwrap_or("").to_owned();
            let comments = without_leading_blank_lines(&detached);
            doc.set_trailing(format!("{trailing}{gap}{}\n", comments.trim_end()));
        }
    }
}

fn without_leading_blank_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .skip_while(|l| l.ends_with('\n') && l.trim().is_empty())
        .collect()
}

/// The positions of every table under `table` (not `table` itself).
fn positions_under(table: &Table, out: &mut Vec<isize>) {
    for (_, item) in table.iter() {
        let tables: Vec<&Table> = match item {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(a) => a.iter().collect(),
            _ => continue,
        };
        for t in tables {
            out.extend(t.position());
            positions_under(t, out);
        }
    }
}

/// The table under `table` at document position `position`.
fn table_at(table: &mut Table, position: isize) -> Option<&mut Table> {
    for (_, item) in table.iter_mut() {
        let tables: Vec<&mut Table> = match item {
            Item::Table(t) => vec![t],
            Item::ArrayOfTables(a) => a.iter_mut().collect(),
            _ => continue,
        };
        for t in tables {
            if t.position() == Some(position) {
                return Some(t);
            }
            if let Some(found) = table_at(t, position) {
                return Some(found);
            }
        }
    }
    None
}

/// When the first key goes into the root of a file that had only tables, the comment block
/// at the top of the file (set apart by a blank line from the first header) stays on top.
fn hoist_header_comment(doc: &mut DocumentMut) {
    let mut positions = Vec::new();
    positions_under(doc.as_table(), &mut positions);
    let Some(first) = positions.into_iter().min() else {
        return;
    };
    let Some(table) = table_at(doc.as_table_mut(), first) else {
        return;
    };
    let Some((detached, rest)) = detached_part(prefix_of(table)) else {
        return;
    };
    let (detached, rest) = (detached.to_owned(), format!("\n{rest}"));
    table.decor_mut().set_prefix(rest);
    let root = doc.decor_mut();
    let before = root
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or("")
        .to_owned();
    root.set_prefix(format!("{before}{detached}"));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A file as a person writes it: a header comment, comments inline and between tables,
    /// keys in their own order, a trigger of a later version (a key this one does not know).
    const HAND: &str = r#"# Settings of the demo project.
# Written by hand.

model = "opus"   # the big one
allowed_tools = ["Read", "Grep"]
created_at = "2025-01-01T00:00:00Z"

# ---- triggers ----

# Every night.
[triggers.nightly]
prompt = "Check the backup."   # keep it short
kind = "schedule"
cron = "0 2 * * *"

# From a later paddock.
[triggers.future]
kind = "hook"
prompt = "Later."
on = "manual"
retries = 3   # not known here
"#;

    fn doc(text: &str) -> DocumentMut {
        text.parse().unwrap()
    }

    fn spec(kind: &str, prompt: &str, extra: &str) -> TriggerSpec {
        toml::from_str(&format!("kind = {kind:?}\nprompt = {prompt:?}\n{extra}")).unwrap()
    }

    fn triggers_of(text: &str) -> Vec<String> {
        let file: crate::projects::ProjectFile = toml::from_str(text).unwrap();
        file.triggers.into_keys().collect()
    }

    #[test]
    fn adding_replacing_and_removing_triggers_keeps_the_rest_as_written() {
        let mut d = doc(HAND);
        set_trigger(
            &mut d,
            "inbox",
            &spec("schedule", "Inbox.", "every = \"15m\""),
        )
        .unwrap();
        let added = d.to_string();
        assert_eq!(
            added,
            format!(
                "{HAND}\n[triggers.inbox]\nkind = \"schedule\"\nprompt = \"Inbox.\"\nevery = \"15m\"\n"
            )
        );
        // The trigger of a later version stays, and is still left out here.
        assert_eq!(triggers_of(&added), ["inbox", "nightly"]);

        // Replacing: in place, the unchanged prompt keeps its comment, the key order stays.
        let new_nightly = spec(
            "schedule",
            "Check the backup.",
            "cron = \"0 3 * * *\"\nmissed = \"run_once\"",
        );
        set_trigger(&mut d, "nightly", &new_nightly).unwrap();
        let replaced = d.to_string();
        assert_eq!(
            replaced,
            added.replace(
                "cron = \"0 2 * * *\"\n",
                "cron = \"0 3 * * *\"\nmissed = \"run_once\"\n"
            )
        );
        let file: crate::projects::ProjectFile = toml::from_str(&replaced).unwrap();
        assert_eq!(file.triggers["nightly"], new_nightly);
        assert_eq!(file.model.as_deref(), Some("opus"));

        // Removing takes the table and its own comment; the banner above it stays.
        assert!(remove_trigger(&mut d, "nightly"));
        assert!(!remove_trigger(&mut d, "nightly"));
        let removed = d.to_string();
        assert_eq!(
            removed,
            replaced.replace(
                "# Every night.\n[triggers.nightly]\nprompt = \"Check the backup.\"   # keep it short\nkind = \"schedule\"\ncron = \"0 3 * * *\"\nmissed = \"run_once\"\n\n",
                ""
            )
        );
        assert_eq!(triggers_of(&removed), ["inbox"]);

        // The last one gone: no `triggers` left, the banner and everything above kept.
        assert!(remove_trigger(&mut d, "future"));
        assert!(remove_trigger(&mut d, "inbox"));
        let text = d.to_string();
        assert_eq!(
            text,
            "# Settings of the demo project.\n# Written by hand.\n\nmodel = \"opus\"   # the big one\nallowed_tools = [\"Read\", \"Grep\"]\ncreated_at = \"2025-01-01T00:00:00Z\"\n\n# ---- triggers ----\n"
        );
        assert!(!d.contains_key("triggers"));
        assert!(triggers_of(&text).is_empty());
    }

    #[test]
    fn the_first_trigger_in_an_empty_file_and_replacing_a_hand_broken_entry() {
        let mut d = doc("");
        set_trigger(&mut d, "b", &spec("hook", "q", "on = \"manual\"")).unwrap();
        assert_eq!(
            d.to_string(),
            "[triggers.b]\nkind = \"hook\"\nprompt = \"q\"\non = \"manual\"\n"
        );
        // An entry that is not a table, or has keys the spec has not: replaced whole.
        let mut d = doc(
            "[triggers]\nb = 3 # oops\n[triggers.c]\nkind = \"hook\"\nprompt = \"q\"\non = \"manual\"\nevry = \"5m\"\n",
        );
        set_trigger(&mut d, "b", &spec("hook", "q", "on = \"manual\"")).unwrap();
        set_trigger(&mut d, "c", &spec("hook", "q", "on = \"manual\"")).unwrap();
        assert_eq!(triggers_of(&d.to_string()), ["b", "c"]);
        assert!(!d.to_string().contains("evry"), "{d}");
        // `triggers` that is not a table is refused.
        let mut d = doc("triggers = 1\n");
        assert!(matches!(
            set_trigger(&mut d, "b", &spec("hook", "q", "on = \"manual\"")),
            Err(EditError::TriggersNotATable)
        ));
        assert!(!remove_trigger(&mut d, "b"));
        assert_eq!(d.to_string(), "triggers = 1\n");
    }

    #[test]
    fn inline_triggers_stay_inline() {
        let mut d =
            doc("triggers = { a = { kind = \"hook\", prompt = \"p\", on = \"manual\" } }\n");
        set_trigger(&mut d, "b", &spec("hook", "q", "on = \"manual\"")).unwrap();
        assert_eq!(
            d.to_string(),
            "triggers = { a = { kind = \"hook\", prompt = \"p\", on = \"manual\" }, b = { kind = \"hook\", prompt = \"q\", on = \"manual\" } }\n"
        );
        set_trigger(&mut d, "a", &spec("hook", "P", "on = \"manual\"")).unwrap();
        assert!(d.to_string().contains("prompt = \"P\""), "{d}");
        assert!(remove_trigger(&mut d, "a"));
        assert!(remove_trigger(&mut d, "b"));
        assert_eq!(d.to_string(), "");
    }

    #[test]
    fn a_rule_is_removed_and_the_rest_stay_as_written() {
        let mut d = doc("allowed_tools = [\"Read\", \"Bash(mkdir:*)\"]  # mine\nmodel = \"x\"\n");
        assert!(disallow_tool(&mut d, "Bash(mkdir:*)"));
        assert_eq!(
            d.to_string(),
            "allowed_tools = [\"Read\"]  # mine\nmodel = \"x\"\n"
        );
        assert!(
            !disallow_tool(&mut d, "Bash(mkdir:*)"),
            "not there any more"
        );
        assert!(
            !disallow_tool(&mut doc("model = \"x\"\n"), "Read"),
            "no list"
        );
    }

    #[test]
    fn an_always_rule_joins_the_list_as_it_is_laid_out() {
        let mut d = doc(HAND);
        assert!(allow_tool(&mut d, "Bash"));
        assert!(!allow_tool(&mut d, "Bash"));
        assert_eq!(
            d.to_string(),
            HAND.replace("[\"Read\", \"Grep\"]", "[\"Read\", \"Grep\", \"Bash\"]")
        );
        let multi = "allowed_tools = [\n  \"Read\",  # reading\n  \"Grep\",\n]\n";
        let mut d = doc(multi);
        assert!(allow_tool(&mut d, "Bash"));
        assert_eq!(
            d.to_string(),
            "allowed_tools = [\n  \"Read\",  # reading\n  \"Grep\",\n  \"Bash\",\n]\n"
        );
        // The first key of a file of tables: below the file's header comment.
        let mut d =
            doc("# top\n\n# a's\n[triggers.a]\nkind = \"hook\"\nprompt = \"p\"\non = \"manual\"\n");
        assert!(allow_tool(&mut d, "Bash"));
        assert_eq!(
            d.to_string(),
            "# top\n\nallowed_tools = [\"Bash\"]\n\n# a's\n[triggers.a]\nkind = \"hook\"\nprompt = \"p\"\non = \"manual\"\n"
        );
        // Not a list: left alone.
        let mut d = doc("allowed_tools = \"Read\"\n");
        assert!(!allow_tool(&mut d, "Bash"));
        assert_eq!(d.to_string(), "allowed_tools = \"Read\"\n");
    }

    #[test]
    fn detached_comments_are_those_above_a_blank_line() {
        assert_eq!(detached_part(""), None);
        assert_eq!(detached_part("\n"), None);
        assert_eq!(detached_part("# mine\n"), None);
        assert_eq!(detached_part("\n# mine\n"), None);
        assert_eq!(
            detached_part("# banner\n\n# mine\n"),
            Some(("# banner\n\n", "# mine\n"))
        );
        assert_eq!(
            detached_part("\n# banner\n  \n"),
            Some(("\n# banner\n  \n", ""))
        );
    }
}
