use std::io::Write as _;

use anyhow::Context;
use clap::Parser;
use paddockd::cli::{Args, Command};
use paddockd::config::{Config, Sources};

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match &args.command {
        Some(Command::Mcp(mcp)) => return paddockd::mcp::main(mcp),
        Some(Command::BenchSearch { chats }) => {
            for line in paddockd::search::large_vocabulary(*chats) {
                println!("{line}");
            }
            return std::process::ExitCode::SUCCESS;
        }
        Some(Command::Info { socket }) => {
            return paddockd::info::main(&Sources {
                config_file: args.config.clone(),
                socket: socket.clone(),
            });
        }
        None => limit_malloc_arenas(),
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

/// The environment variable that bounds glibc's malloc arenas.
const ARENAS_VAR: &str = "MALLOC_ARENA_MAX";

/// glibc gives each thread that allocates an arena of its own and keeps what was freed in it,
/// so a chat list of 10,000 rows built on one thread and encoded on another leaves both holding
/// its memory: measured with the listing bench's 10,000 chats after five `ls --json`, the daemon
/// was resident in 143 MB with the default arenas and in 91 MB with two. glibc reads the bound
/// before `main`, so the daemon starts itself again, once, with it set (`exec`: the same
/// process, pid and open files). A bound the user set is kept; if the `exec` fails, the
/// daemon runs on with the default arenas.
fn limit_malloc_arenas() {
    use std::os::unix::process::CommandExt as _;
    if std::env::var_os(ARENAS_VAR).is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let failed = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(ARENAS_VAR, "2")
        .exec();
    let _ = writeln!(
        std::io::stderr(),
        "paddockd: running with glibc's default malloc arenas (could not start again with {ARENAS_VAR}=2: {failed})"
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
