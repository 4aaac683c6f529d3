//! Project .chats links (being built).
