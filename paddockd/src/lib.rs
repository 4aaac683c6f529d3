//! paddockd: owns projects and chats, streams every turn live through the session hub, and
//! drives a bounded pool of Claude Code processes. `ARCHITECTURE.md` maps the modules.

pub mod adopt;
pub mod agent;
pub mod approvals;
pub mod attachments;
pub mod attention;
pub mod autocommit;
pub mod chat_links;
pub mod chats;
pub mod child;
pub mod claude_version;
pub mod cli;
pub mod config;
pub mod connection;
pub mod daemon;
pub mod files;
pub mod fsutil;
pub mod git;
pub mod history;
pub mod hub;
pub mod index;
pub mod info;
pub mod listener;
pub mod listing;
pub mod logging;
pub mod management;
pub mod mcp;
pub mod parking;
pub mod preload;
pub mod projects;
pub mod provenance;
pub mod run_log;
pub mod runner;
pub mod search;
pub mod state;
pub mod stores;
pub mod sweeper;
pub mod transcripts;
pub mod tree;
pub mod triggers;
pub mod user_mcp;
pub mod users;
pub mod websocket;

pub use config::Config;
pub use daemon::run;
