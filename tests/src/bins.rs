//! The workspace's binaries as the end-to-end tests run them.

use std::path::{Path, PathBuf};

/// `target/<profile>/NAME`, next to the running test's own executable
/// (`target/<profile>/deps/`). Panics, saying how to build it, when it is not there.
#[allow(clippy::expect_used, clippy::panic)]
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own executable");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps");
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is not built; run the tests with `cargo xtask test` (or `cargo build --workspace` first)",
        path.display()
    );
    path
}
