//! The connection to paddockd: the hello handshake, requests matched to their one response by
//! id, and the events the daemon pushes in between.
//!
//! Ask the daemon something with [`Client::call`]: it takes any request of the protocol's table
//! ([`paddock_proto::Call`]) and gives back that request's own typed reply, so no caller
//! matches on reply kinds (a wrong kind is a [`ClientError::Protocol`]).
//!
//! One reader task owns the socket's read half and demultiplexes: a response completes the
//! oneshot its request is waiting on, anything else goes to the [`Events`] queue. Because that
//! one task handles lines in socket order and queues an event before it completes a later
//! response, every event the daemon wrote before a response is already queued when
//! [`Client::call`] returns it (the frames that follow `chat:send`'s reply are never "early").

mod connection;
mod error;
mod events;
mod follow;
mod raw;
mod remote;
mod start;

pub use connection::{Client, ConnectOptions, Reader, Writer};
pub use error::ClientError;
pub use events::{EVENT_QUEUE_CAPACITY, Event, Events};
pub use follow::{Follow, Followed};
pub use raw::RawReply;
pub use remote::{RemoteOptions, connect_remote, connect_remote_existing, run_remote, sh_quote};
pub use start::{
    StartOptions, connect_or_start, daemon_binary, daemon_log_path, socket_answers, start_daemon,
    stop_daemon, wait_until_stopped,
};
