//! `paddock`: the TUI (no subcommand) and the scriptable subcommands (DESIGN §6).

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use paddock_tui::cli::Cli;
use paddock_tui::commands::{self, Failure};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
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
                // One line, whatever the error chain held, and nothing in it the terminal
                // would act on (it may quote a reply or a file).
                let line = message.replace('\n', " ");
                let line = paddock_tui::format::visible(&line);
                let _ = writeln!(std::io::stderr(), "paddock: {line}");
            }
            ExitCode::from(code)
        }
    }
}

/// Help and version go out as clap writes them; a usage mistake becomes the one-line reason
/// every failure gets (DESIGN §6), pointing at the help that explains it.
fn usage_error(err: &clap::Error) -> ExitCode {
    if !err.use_stderr() {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    // `paddock daemon` alone: the list of its subcommands is the most useful answer.
    if err.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = err.print();
        return ExitCode::from(2);
    }
    let rendered = err.render().to_string();
    // The help of the command the mistake was made in: `paddock ls --bogus` points at
    // `paddock ls --help`, the one that lists what `ls` takes.
    let help = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage:"))
        .map(|usage| {
            usage
                .split_whitespace()
                .take_while(|w| {
                    !w.starts_with(['[', '<', '-'])
                        && !w.chars().all(|c| c.is_ascii_uppercase() || c == '.')
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|command| command.starts_with("paddock"))
        .unwrap_or_else(|| "paddock".to_owned());
    // Everything clap says before the usage, on one line.
    let mut reason = String::new();
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        let line = line.strip_prefix("error: ").unwrap_or(line);
        if !reason.is_empty() {
            reason.push_str(if reason.ends_with(':') { " " } else { "; " });
        }
        reason.push_str(line);
    }
    let _ = writeln!(std::io::stderr(), "paddock: {reason}; see `{help} --help`");
    ExitCode::from(2)
}
