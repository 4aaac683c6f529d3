//! Serves the Messages API stand-in (`paddock_tests::mock_api`) until killed.
//! Prints `LISTENING <port>` on stdout once bound. `--port N` picks the port (default: any);
//! `--log FILE` appends every request to FILE as a JSON line.

use std::io::Write as _;

use anyhow::Context as _;
use paddock_tests::mock_api::MockApi;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut port = 0u16;
    let mut log = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = args
                    .next()
                    .context("--port needs a value")?
                    .parse()
                    .context("--port must be a number")?;
            }
            "--log" => {
                log = Some(std::path::PathBuf::from(
                    args.next().context("--log needs a file")?,
                ))
            }
            other => {
                anyhow::bail!(
                    "unknown argument {other:?} (usage: mock-anthropic [--port N] [--log FILE])"
                )
            }
        }
    }
    let api = MockApi::start_logging(port, log)
        .await
        .context("starting the mock API")?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "LISTENING {}", api.port())?;
    stdout.flush()?;
    // Serve until killed.
    std::future::pending::<()>().await;
    drop(api);
    Ok(())
}
