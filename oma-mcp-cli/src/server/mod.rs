//! The server a command reaches and how: the flags that name it (`target`), the two kinds of
//! server and the flags of each (`kind`: the environment of a started one, `env`; the HTTP
//! headers of one reached by URL, `http`), the connection settings they make (`resolve`),
//! and connecting to it (`connect`).

pub mod connect;
pub mod env;
pub mod http;
pub mod kind;
pub mod oauth;
pub mod resolve;
pub mod target;
