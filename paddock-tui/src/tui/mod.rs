//! The TUI.
use crate::commands::Context;

pub async fn run(_ctx: Context) -> anyhow::Result<()> {
    Ok(())
}
