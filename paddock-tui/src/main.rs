//! `paddock`: the TUI (no subcommand) and the scriptable subcommands (DESIGN §6).

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use paddock_tui::cli::Cli;
use paddock_tui::commands::{self, Failure};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(commands::run(cli)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let (code, message) = match err.downcast_ref::<Failure>() {
                Some(failure) => (failure.code, failure.message.clone()),
                None => (1, Some(format!("{err:#}"))),
            };
            if let Some(message) = message {
                // One line, whatever the error chain held.
                let line = message.replace('\n', " ");
                let _ = writeln!(std::io::stderr(), "paddock: {line}");
            }
            ExitCode::from(code)
        }
    }
}
