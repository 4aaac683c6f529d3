//! Project automation behind `cargo xtask`: generated documentation ([`docs`]) and the test and
//! CI pipelines ([`pipeline`]). The binary in `main.rs` is only the command line over these.

pub mod bench;
pub mod bench_chats;
pub mod bench_corpus;
pub mod bench_env;
pub mod bench_hosts;
pub mod bench_search;
pub mod bench_start;
pub mod bench_streaming;
pub mod bench_tui;
pub mod bench_worktrees;
pub mod docs;
pub mod pipeline;
pub mod report;

use std::path::PathBuf;

/// The workspace root (the directory holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    let xtask = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().map(PathBuf::from).unwrap_or(xtask)
}
