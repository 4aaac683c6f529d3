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
        None => {}
    }
    match real_main(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("paddockd: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn real_main(args: Args) -> anyhow::Result<()> {
    let cfg = Config::load(&Sources {
        config_file: args.config.clone(),
        socket: args.socket.clone(),
    })?;
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
