//! Test doubles and harness code shared by the workspace's integration tests:
//! * [`fake_claude`]: a fast, scripted stand-in for the Claude Code CLI (the `fake-claude` bin);
//! * [`mock_api`]: a stand-in for the Anthropic Messages API that the *real* CLI talks to;
//! * [`real_claude`], [`process`], [`wait`]: spawning and driving either CLI with deadlines;
//! * [`cwd_encoding`]: how the CLI names per-project transcript folders; [`git`]: git in a
//!   test's repository;
//! * [`record`]: the capture recorder behind the `record-cli` bin (`tests/fixtures/claude-cli-*`);
//! * [`mcp_echo`]: the test MCP server's logic (`fake-mcp`, and `POST /mcp` of the stand-in);
//! * [`bins`], [`tmux`], [`tui_env`]: the built binaries, a private tmux server, and one
//!   person's data folder and TUI, for end-to-end tests; [`fake_hosts`]: several hosts on
//!   this machine behind a stand-in for ssh.

pub mod bins;
pub mod cli_env;
pub mod cwd_encoding;
pub mod fake_claude;
pub mod fake_hosts;
pub mod git;
pub mod mcp_echo;
pub mod mock_api;
pub mod process;
pub mod real_claude;
pub mod record;
pub mod sync_client;
pub mod text;
pub mod tmux;
pub mod tui_env;
pub mod wait;
