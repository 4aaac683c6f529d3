use std::io::Write as _;

use anyhow::Context;
use clap::Parser;
use paddockd::cli::{Args, Command};
use paddockd::config::{Config, Sources};

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match &args.command {
        Some(Command::Mcp(mcp)) => return paddockd::mcp::main(mcp),
        Some(Command::Info { socket }) => {
            return paddockd::info::main(&Sources {
                config_file: args.config.clone(),
                socket: socket.clone(),
            });
        }
        None => tune_malloc(),
    }
    let (check_only, log_stderr) = (args.check_config, args.log_stderr);
    let sources = sources(&args);
    match real_main(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            let reason = format!("{e:#}");
            // Lost the race to another daemon starting at the same moment: not a failure.
            if e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<paddockd::listener::ListenError>(),
                    Some(paddockd::listener::ListenError::AlreadyRunning(_))
                )
            }) {
                let _ = writeln!(std::io::stderr(), "paddockd: {reason}");
                return std::process::ExitCode::from(paddock_proto::EXIT_ALREADY_RUNNING);
            }
            // The terminal that started it (a client reads this from the pipe it gave us)...
            let _ = writeln!(std::io::stderr(), "paddockd: {reason}");
            // ...and the log, even when the configuration that names the log was refused.
            if !check_only && !log_stderr {
                paddockd::logging::record_failure(&Config::log_path_hint(&sources), &reason);
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// glibc's malloc settings the daemon runs with, each unless the user set it: read before
/// `main`, so the daemon starts itself again, once, with them set.
///
/// - `MALLOC_ARENA_MAX=1`: glibc gives each thread that allocates an arena of its own and keeps
///   what was freed in it, so a chat list of 10,000 rows built on one thread and encoded on
///   another leaves both holding its memory (measured with the listing bench's 10,000 chats
///   after five `ls --json`: 143 MB resident with the default arenas, 91 MB with two; with the
///   mmap threshold below, 75 MB with two and 55 MB with one). On two cores one arena is no
///   slower for listings and streaming; a search reading transcripts on several threads
///   pays some 15 ms for it.
/// - `MALLOC_MMAP_THRESHOLD_=131072`: a block this large or larger is mapped on its own and
///   given back when freed. By default glibc raises the threshold to the largest block freed,
///   so once a 7 MB answer was freed, the next ones come from the heap and stay resident: 92 MB
///   after five `ls --json`, 75 MB with the threshold fixed (and no slower).
const MALLOC_TUNING: [(&str, &str); 2] = [
    ("MALLOC_ARENA_MAX", "1"),
    ("MALLOC_MMAP_THRESHOLD_", "131072"),
];

/// Starts the daemon again with [`MALLOC_TUNING`] (`exec`: the same process, pid and open
/// files) when one of its settings is not set. If the `exec` fails, the daemon runs on with
/// glibc's defaults.
fn tune_malloc() {
    use std::os::unix::process::CommandExt as _;
    let unset: Vec<(&str, &str)> = MALLOC_TUNING
        .into_iter()
        .filter(|(var, _)| std::env::var_os(var).is_none())
        .collect();
    if unset.is_empty() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let failed = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .envs(unset.iter().copied())
        .exec();
    let _ = writeln!(
        std::io::stderr(),
        "paddockd: running with glibc's default malloc settings (could not start again with {}: {failed})",
        unset
            .iter()
            .map(|(var, value)| format!("{var}={value}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}

fn sources(args: &Args) -> Sources {
    Sources {
        config_file: args.config.clone(),
        socket: args.socket.clone(),
    }
}

fn real_main(args: Args) -> anyhow::Result<()> {
    let mut cfg = Config::load(&sources(&args))?;
    cfg.stderr_to_log = !args.log_stderr;
    if args.check_config {
        println!("{cfg:#?}");
        return Ok(());
    }
    paddockd::logging::init(&cfg.log, args.log_stderr)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .context("cannot install the SIGTERM handler")?;
        let shutdown = async move {
            tokio::select! {
                _ = term.recv() => tracing::info!("SIGTERM"),
                _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT"),
            }
        };
        paddockd::run(cfg, shutdown).await
    })
}
