//! Man pages and shell completions, generated from the binaries' clap definitions and committed
//! under `man/` (a test checks they are fresh: rust-analyzer's "tidy" pattern).
//!
//! - `man/paddock.1` and one page per subcommand (`paddock-send.1`, `paddock-daemon-start.1`...),
//!   from `paddock_tui::cli::command()`;
//! - `man/paddockd.8` (and its subcommands' pages), from `paddockd::cli::command()`;
//! - `man/completions/`: bash, zsh and fish completions for both binaries.
//!
//! Only files matching those patterns belong to the generator; anything else under `man/`
//! (a hand-written `paddock.toml.5`, say) is left alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap_complete::Shell;

/// The shells completions are generated for.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// The folder under the output directory that holds the completions.
pub const COMPLETIONS_DIR: &str = "completions";

/// Generated files: path relative to the output directory → contents.
pub type Files = BTreeMap<PathBuf, Vec<u8>>;

/// The binaries whose documentation is generated: name, man section, clap command.
fn binaries() -> Vec<(&'static str, &'static str, clap::Command)> {
    vec![
        ("paddock", "1", paddock_tui::cli::command()),
        ("paddockd", "8", paddockd::cli::command()),
    ]
}

/// Every man page: the binary's own, and one per visible subcommand, recursively.
pub fn man_pages() -> Result<Files> {
    let mut files = Files::new();
    for (name, section, cmd) in binaries() {
        let mut cmd = cmd.bin_name(name).disable_help_subcommand(true);
        cmd.build();
        // Every page of one binary names the same source: `paddock 0.1.0`, not `send 0.1.0`.
        let source = format!("{name} {}", cmd.get_version().unwrap_or_default());
        add_pages(&mut files, cmd, section, &source)?;
    }
    Ok(files)
}

fn add_pages(files: &mut Files, cmd: clap::Command, section: &str, source: &str) -> Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        add_pages(files, sub.clone(), section, source)?;
    }
    let man = clap_mangen::Man::new(cmd)
        .section(section)
        .source(source)
        .manual("Paddock Manual");
    let mut page = Vec::new();
    man.render(&mut page)
        .with_context(|| format!("rendering the man page {}", man.get_filename()))?;
    files.insert(PathBuf::from(man.get_filename()), page);
    Ok(())
}

/// Completion scripts for every binary and shell, under `completions/`.
pub fn completions() -> Files {
    let mut files = Files::new();
    for (name, _, mut cmd) in binaries() {
        for shell in SHELLS {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, name, &mut script);
            let path =
                Path::new(COMPLETIONS_DIR).join(clap_complete::Generator::file_name(&shell, name));
            files.insert(path, script);
        }
    }
    files
}

/// Everything the generator owns under `man/`.
pub fn all() -> Result<Files> {
    let mut files = man_pages()?;
    files.extend(completions());
    Ok(files)
}

/// Whether `rel` (relative to the output directory) is a file this generator owns.
pub fn is_generated_path(rel: &Path) -> bool {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    match rel.parent().and_then(|p| p.to_str()) {
        Some("") => name.starts_with("paddock") && (name.ends_with(".1") || name.ends_with(".8")),
        Some(COMPLETIONS_DIR) => true,
        _ => false,
    }
}

/// The generated files already in `dir` (those [`is_generated_path`] claims).
pub fn read_generated(dir: &Path) -> Result<Files> {
    let mut files = Files::new();
    for sub in [Path::new(""), Path::new(COMPLETIONS_DIR)] {
        let folder = dir.join(sub);
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("listing {}", folder.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("listing {}", folder.display()))?;
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let rel = sub.join(entry.file_name());
            if is_generated_path(&rel) {
                let path = entry.path();
                let contents =
                    std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                files.insert(rel, contents);
            }
        }
    }
    Ok(files)
}

/// What writing `files` into `dir` changes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub written: Vec<PathBuf>,
    pub removed: Vec<PathBuf>,
}

/// Writes `files` into `dir`, rewriting only what differs, and removes generated files of the
/// kinds in `owned` that `files` no longer has (a subcommand that went away). `owned` says which
/// of the generator's files this run is responsible for, so `cargo xtask completions` does not
/// prune the man pages.
pub fn write(dir: &Path, files: &Files, owned: impl Fn(&Path) -> bool) -> Result<Changes> {
    let existing = read_generated(dir)?;
    let mut changes = Changes::default();
    for (rel, contents) in files {
        if existing.get(rel) == Some(contents) {
            continue;
        }
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))?;
        changes.written.push(rel.clone());
    }
    for rel in existing
        .keys()
        .filter(|rel| owned(rel) && !files.contains_key(*rel))
    {
        let path = dir.join(rel);
        std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        changes.removed.push(rel.clone());
    }
    Ok(changes)
}

/// Whether `rel` is a completion script.
pub fn is_completion(rel: &Path) -> bool {
    rel.starts_with(COMPLETIONS_DIR)
}

/// Differences between committed and freshly generated files, one line each; empty when fresh.
pub fn diff(committed: &Files, fresh: &Files) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, contents) in fresh {
        match committed.get(rel) {
            None => out.push(format!("missing: {}", rel.display())),
            Some(c) if c != contents => out.push(format!("out of date: {}", rel.display())),
            Some(_) => {}
        }
    }
    for rel in committed.keys().filter(|rel| !fresh.contains_key(*rel)) {
        out.push(format!("no longer generated: {}", rel.display()));
    }
    out
}
