//! Wire types of the paddockd socket protocol, and its JSON-lines framing.
//!
//! This crate holds only what crosses the socket: serde types and the line codec. It has no
//! async runtime and no daemon types; the daemon and the client convert to their own types at
//! the edge. `docs/PROTOCOL.md` documents every message with an example.
//!
//! Shape of a connection:
//! 1. The client sends [`Request::Hello`] first, carrying [`PROTOCOL_VERSION`]. A mismatch is
//!    answered with [`ErrorCode::ProtocolMismatch`] and the details the client needs to act.
//! 2. Every client message is a [`ClientMessage`]: a request id plus a [`Request`]. Each gets
//!    exactly one [`Response`]; when it succeeds, its [`Reply`] is of the one kind the request's
//!    [`Call`] pairs it with.
//! 3. The daemon also pushes events: hub frames ([`HubFrame`], every one stamped with a
//!    [`Routing`] payload and a monotonic `seq`) and control events ([`ControlMessage`]).

mod codec;
mod delta;
mod encoded_rows;
mod messages;
pub mod paths;
mod row_json;

pub use codec::{
    FrameError, LineFramer, MAX_LINE_BYTES, MAX_SERVER_LINE_BYTES, decode, decode_server, encode,
    reply_kind,
};
pub use encoded_rows::{EncodedRow, Place, encode_chats, write_row};
pub use messages::*;
pub use row_json::RowView;

/// The protocol version. Bump it on any change that an older peer would misread.
pub const PROTOCOL_VERSION: u32 = 3;

/// The exit status of a `paddockd` that did not start because another daemon holds its socket's
/// lock (two clients started one at once): the client that started it waits for the other to
/// answer instead of reporting a failure. Any other failure exits 1.
pub const EXIT_ALREADY_RUNNING: u8 = 3;
