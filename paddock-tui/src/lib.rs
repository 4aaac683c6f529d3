//! The Paddock terminal client: the connection to paddockd ([`client`]), the `paddock` command
//! line ([`cli`], [`commands`]), the pure text formatting of its output ([`format`]) and the TUI
//! ([`tui`]).

pub mod attachments;
pub mod cli;
pub mod client;
pub mod commands;
pub mod format;
pub mod hosts;
pub mod message;
pub mod needs;
pub mod notify;
pub mod tui;
