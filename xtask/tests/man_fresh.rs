//! Tidy check: the committed man pages and completions are what the clap definitions generate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use xtask::docs;

#[test]
fn committed_man_pages_and_completions_are_fresh() {
    let man = xtask::workspace_root().join("man");
    let tmp = tempfile::tempdir().unwrap();
    docs::write(tmp.path(), &docs::all().unwrap(), |_| true).unwrap();
    let fresh = docs::read_generated(tmp.path()).unwrap();
    assert_eq!(fresh, docs::all().unwrap(), "writing loses nothing");
    let committed = docs::read_generated(&man).unwrap();
    let problems = docs::diff(&committed, &fresh);
    assert!(
        problems.is_empty(),
        "the generated docs in man/ are stale; run `cargo xtask man` and commit the result:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn every_binary_and_subcommand_has_a_page() {
    let pages = docs::man_pages().unwrap();
    for name in ["paddock.1", "paddockd.8", "paddock-send.1"] {
        assert!(
            pages.keys().any(|p| p.to_str() == Some(name)),
            "{name} is not generated; pages: {:?}",
            pages.keys().collect::<Vec<_>>()
        );
    }
    let completions = docs::completions();
    for name in ["paddock.bash", "_paddock", "paddock.fish"] {
        assert!(
            completions
                .keys()
                .any(|p| p.ends_with(name) && docs::is_completion(p)),
            "completions/{name} is not generated"
        );
    }
}

#[test]
fn pruning_removes_only_generated_files() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("paddock-gone.1"), "old").unwrap();
    std::fs::write(tmp.path().join("paddock.toml.5"), "hand-written").unwrap();
    std::fs::write(tmp.path().join("README"), "notes").unwrap();
    let changes = docs::write(tmp.path(), &docs::completions(), docs::is_completion).unwrap();
    assert!(changes.removed.is_empty(), "completions do not prune pages");
    assert!(tmp.path().join("paddock-gone.1").exists());
    let changes = docs::write(tmp.path(), &docs::all().unwrap(), |_| true).unwrap();
    assert_eq!(
        changes.removed,
        vec![std::path::PathBuf::from("paddock-gone.1")]
    );
    assert!(tmp.path().join("paddock.toml.5").exists());
    assert!(tmp.path().join("README").exists());
    let again = docs::write(tmp.path(), &docs::all().unwrap(), |_| true).unwrap();
    assert_eq!(
        again,
        docs::Changes::default(),
        "a second run changes nothing"
    );
}
