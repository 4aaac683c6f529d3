//! Records a capture folder of a Claude Code release (see `paddock_tests::record`):
//!
//! ```text
//! cargo run -p paddock-tests --bin record-cli -- --claude <claude binary> --out <folder> [--only a_,b_partial]
//! ```
//!
//! `--out` must not exist yet, or be empty. The CLI runs offline against the crate's Messages
//! API stand-in; the MCP server is the `fake-mcp` binary beside this one.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use paddock_tests::record::{Options, record};

const USAGE: &str =
    "usage: record-cli --claude <claude binary> --out <new folder> [--only PREFIX[,PREFIX…]]";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut claude = None;
    let mut out = None;
    let mut only = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--claude" => claude = Some(PathBuf::from(args.next().context(USAGE)?)),
            "--out" => out = Some(PathBuf::from(args.next().context(USAGE)?)),
            "--only" => only.extend(
                args.next()
                    .context(USAGE)?
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned),
            ),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let (Some(claude), Some(out)) = (claude, out) else {
        bail!("{USAGE}");
    };
    if out.exists()
        && std::fs::read_dir(&out)
            .with_context(|| format!("reading {}", out.display()))?
            .next()
            .is_some()
    {
        bail!(
            "{} is not empty: record into a new folder, then replace the old one",
            out.display()
        );
    }
    let exe = std::env::current_exe().context("locating record-cli")?;
    let fake_mcp = exe
        .parent()
        .map(|dir| dir.join("fake-mcp"))
        .filter(|p| p.is_file())
        .context("fake-mcp is not beside record-cli: run `cargo build -p paddock-tests --bins`")?;
    let version = std::process::Command::new(&claude)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", claude.display()))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_owned();
    eprintln!(
        "record-cli: recording {} ({version}) into {}",
        claude.display(),
        out.display()
    );
    record(&Options {
        claude,
        fake_mcp,
        out,
        only,
        version,
    })
    .await
}
