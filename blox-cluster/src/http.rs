//! The HTTP/1.1 server under the API: one thread per connection, at most
//! [`HttpLimits::max_connections`] at once, every request read against a deadline and size
//! limits, and the bearer token checked before any body is read.
//!
//! Why not a general-purpose server: the API needs one request per connection, small JSON
//! bodies and hard limits, and a stalled or hostile client must never hold up another. Here:
//!
//! - the accept loop never reads from a client: it hands each connection to a thread of its
//!   own, or, when [`HttpLimits::max_connections`] are already open, answers `503` at once;
//! - a client has [`HttpLimits::request_timeout`] to send its whole request (head and body), or
//!   it gets `408` and is disconnected, however slowly it trickles bytes;
//! - the head is limited to [`MAX_HEAD`] bytes (`431`), the body to the caller's limit (`413`,
//!   from `Content-Length`, before any of it is read); `Transfer-Encoding` is refused (`501`);
//! - the caller's `authorize` sees the head before the body is read: a request without the
//!   right token is answered `401` without waiting for its body;
//! - responses are written with the same timeout, so a client that does not read cannot hold
//!   its thread either; every response closes the connection.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The largest request head (request line and headers) accepted, in bytes.
pub(crate) const MAX_HEAD: usize = 16 * 1024;
/// The most header lines accepted.
const MAX_HEADERS: usize = 64;

/// Limits of the HTTP layer (`serve --max-connections`, `--request-timeout`).
#[derive(Clone, Debug, PartialEq)]
pub struct HttpLimits {
    /// Connections served at once; a connection beyond them is answered `503` at once.
    pub max_connections: usize,
    /// How long a client has to send its whole request (and to take the response), after
    /// which it gets `408` and is disconnected.
    pub request_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: 64,
            request_timeout: Duration::from_secs(10),
        }
    }
}

/// A request as read: method, target (path and query) and headers (names in lower case).
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) method: String,
    pub(crate) target: String,
    headers: Vec<(String, String)>,
}

impl Head {
    /// The value of header `name` (lower case), if sent once; the first if sent more often.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response: status code and JSON body.
pub(crate) type Reply = (u16, serde_json::Value);

/// What a server does with requests.
pub(crate) trait Handler: Send + Sync + 'static {
    /// Called with the head before the body is read: `Err` answers at once (e.g. `401`).
    fn authorize(&self, head: &Head) -> Result<(), Reply>;
    /// The largest body accepted for this request, in bytes.
    fn max_body(&self, head: &Head) -> u64;
    /// Answer the request.
    fn handle(&self, head: &Head, body: &[u8]) -> Reply;
}

fn error(code: u16, msg: impl Into<String>) -> Reply {
    (code, serde_json::json!({ "error": msg.into() }))
}

/// A running server: stop it with [`HttpServer::shutdown`].
pub(crate) struct HttpServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Serve `listener` with `handler` on a thread of its own.
    pub(crate) fn spawn<H: Handler>(
        listener: TcpListener,
        handler: H,
        limits: HttpLimits,
    ) -> std::io::Result<HttpServer> {
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handler = Arc::new(handler);
        let thread = std::thread::Builder::new()
            .name("blox-http-accept".into())
            .spawn(move || accept_loop(&listener, &handler, &limits, &flag))?;
        Ok(HttpServer {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stop accepting connections (those being served finish on their own, within the request
    /// timeout).
    pub(crate) fn shutdown(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Decrements the count of open connections when a connection's thread ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept_loop<H: Handler>(
    listener: &TcpListener,
    handler: &Arc<H>,
    limits: &HttpLimits,
    stop: &AtomicBool,
) {
    let open = Arc::new(AtomicUsize::new(0));
    // Connections over the limit are answered by one thread of their own, so that the accept
    // loop never waits on a client; when even its queue is full they are closed unanswered.
    let (turn_away, rejected) = std::sync::mpsc::sync_channel::<TcpStream>(64);
    let limit = limits.max_connections;
    let rejecter = std::thread::Builder::new()
        .name("blox-http-503".into())
        .spawn(move || {
            for s in rejected {
                let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
                let msg =
                    format!("the server is serving its limit of {limit} connections; retry later");
                respond(s, &error(503, msg), Duration::from_millis(200));
            }
        });
    if let Err(e) = rejecter {
        eprintln!("blox-cluster: HTTP API: cannot start a thread: {e}");
        return;
    }
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let stream = match conn {
            Ok(s) => s,
            Err(e) => {
                // Out of file descriptors or the like: give the open connections time to end.
                eprintln!("blox-cluster: HTTP API: accept: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        if open.load(Ordering::SeqCst) >= limits.max_connections {
            let _ = turn_away.try_send(stream);
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(Arc::clone(&open));
        let h = Arc::clone(handler);
        let limits = limits.clone();
        let spawned = std::thread::Builder::new()
            .name("blox-http".into())
            .spawn(move || {
                let _slot = slot;
                serve_one(stream, &*h, &limits);
            });
        if let Err(e) = spawned {
            // The closure (and its slot) was dropped: the count is right again.
            eprintln!("blox-cluster: HTTP API: cannot start a connection thread: {e}");
        }
    }
}

/// Why a request could not be read.
enum ReadError {
    /// The client went away (or sent nothing): nothing to answer.
    Gone,
    /// Answer this.
    Reply(Reply),
}

/// Read from `s` into `buf` until `deadline`; `Ok(0)` at the end of the stream.
fn read_some(s: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> Result<usize, ReadError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ReadError::Reply(timeout_reply()));
        }
        s.set_read_timeout(Some(left))
            .map_err(|_| ReadError::Gone)?;
        match s.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(_) => return Err(ReadError::Gone),
        }
    }
}

fn timeout_reply() -> Reply {
    error(408, "the request was not complete in time; send it whole")
}

/// Where a request's bytes come from: a connection read against its deadline ([`Conn`]), or
/// a fuzz target's bytes in pieces ([`fuzzing`]).
trait Source {
    /// Read some bytes into `buf`; `Ok(0)` at the end of the stream.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ReadError>;
    /// Tell the client to send its body (`Expect: 100-continue`).
    fn send_continue(&mut self) -> Result<(), ReadError>;
}

/// A connection with the deadline of its request.
struct Conn<'a> {
    s: &'a mut TcpStream,
    deadline: Instant,
}

impl Source for Conn<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, ReadError> {
        read_some(self.s, buf, self.deadline)
    }
    fn send_continue(&mut self) -> Result<(), ReadError> {
        self.s
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .map_err(|_| ReadError::Gone)
    }
}

/// Read the head: returns it and the bytes of the body already read.
fn read_head(s: &mut impl Source) -> Result<(Head, Vec<u8>), ReadError> {
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let end = loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(ReadError::Gone);
        }
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            break from + p;
        }
        // No end yet in MAX_HEAD + 4 bytes: any end to come is past the limit. (Checking
        // `> MAX_HEAD` here would refuse a head of up to MAX_HEAD bytes whose end arrived in a
        // later piece, and accept it when it came in one: the answer must not depend on how
        // the bytes were cut.)
        if buf.len() >= MAX_HEAD + 4 {
            return Err(ReadError::Reply(error(
                431,
                format!("request head over {MAX_HEAD} bytes"),
            )));
        }
    };
    if end > MAX_HEAD {
        return Err(ReadError::Reply(error(
            431,
            format!("request head over {MAX_HEAD} bytes"),
        )));
    }
    let rest = buf[end + 4..].to_vec();
    let bad = |m: &str| ReadError::Reply(error(400, m));
    let text = std::str::from_utf8(&buf[..end]).map_err(|_| bad("request head is not UTF-8"))?;
    // Lines end with CRLF; a bare CR or LF (or a NUL) is refused, not taken as part of a
    // target or a value (RFC 9112 §2.2).
    if text.split("\r\n").any(|l| l.contains(['\r', '\n', '\0'])) {
        return Err(bad("a bare CR, LF or NUL in the request head"));
    }
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("malformed request line"));
    };
    if !version.starts_with("HTTP/1.")
        || method.is_empty()
        || !target.starts_with('/')
        || line.chars().any(|c| c.is_control())
    {
        return Err(bad("malformed request line"));
    }
    let mut headers = Vec::new();
    for l in lines {
        let Some((k, v)) = l.split_once(':') else {
            return Err(bad("malformed header line"));
        };
        if k.is_empty() || k.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad("malformed header name"));
        }
        if headers.len() == MAX_HEADERS {
            return Err(ReadError::Reply(error(
                431,
                format!("more than {MAX_HEADERS} header lines"),
            )));
        }
        headers.push((k.to_ascii_lowercase(), v.trim().to_owned()));
    }
    Ok((
        Head {
            method: method.to_owned(),
            target: target.to_owned(),
            headers,
        },
        rest,
    ))
}

/// The body's length from `Content-Length` (0 without one), or the reply that refuses it.
fn body_length(head: &Head, max: u64) -> Result<u64, Reply> {
    if head.header("transfer-encoding").is_some() {
        return Err(error(
            501,
            "Transfer-Encoding is not supported; send a Content-Length",
        ));
    }
    let mut len = None;
    for (_, v) in head.headers.iter().filter(|(k, _)| k == "content-length") {
        let n: u64 = v
            .parse()
            .map_err(|_| error(400, format!("bad Content-Length `{v}`")))?;
        if len.is_some_and(|l| l != n) {
            return Err(error(400, "conflicting Content-Length headers"));
        }
        len = Some(n);
    }
    let len = len.unwrap_or(0);
    if len > max {
        return Err(error(413, format!("body over {max} bytes")));
    }
    Ok(len)
}

fn serve_one(mut s: TcpStream, h: &dyn Handler, limits: &HttpLimits) {
    let deadline = Instant::now() + limits.request_timeout;
    let _ = s.set_write_timeout(Some(limits.request_timeout));
    let _ = s.set_nodelay(true);
    let reply = match read_request(
        &mut Conn {
            s: &mut s,
            deadline,
        },
        h,
    ) {
        Ok(r) => r,
        Err(ReadError::Reply(r)) => r,
        Err(ReadError::Gone) => return,
    };
    respond(s, &reply, Duration::from_millis(500));
}

fn read_request(s: &mut impl Source, h: &dyn Handler) -> Result<Reply, ReadError> {
    let (head, mut body) = read_head(s)?;
    if let Err(r) = h.authorize(&head) {
        return Ok(r);
    }
    let len = body_length(&head, h.max_body(&head)).map_err(ReadError::Reply)? as usize;
    if body.len() > len {
        return Err(ReadError::Reply(error(
            400,
            "more data than Content-Length (one request per connection)",
        )));
    }
    let expects = head
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"));
    if expects && body.len() < len {
        // The client (curl, for one) waits for this before it sends the body.
        s.send_continue()?;
    }
    let mut chunk = [0u8; 16 * 1024];
    while body.len() < len {
        let want = (len - body.len()).min(chunk.len());
        let n = s.read(&mut chunk[..want])?;
        if n == 0 {
            return Err(ReadError::Gone);
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(h.handle(&head, &body))
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        507 => "Insufficient Storage",
        _ => "Status",
    }
}

/// Write the response and close the connection; what the client still sends is read (at most
/// 64 KiB, for at most `linger`) first, so that closing does not reset the connection under
/// the response.
fn respond(mut s: TcpStream, (code, body): &Reply, linger: Duration) {
    let mut text = body.to_string();
    text.push('\n');
    let mut head = format!(
        "HTTP/1.1 {code} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(*code),
        text.len()
    );
    if *code == 401 {
        head.push_str("WWW-Authenticate: Bearer\r\n");
    }
    head.push_str("\r\n");
    head.push_str(&text);
    if s.write_all(head.as_bytes())
        .and_then(|()| s.flush())
        .is_err()
    {
        return;
    }
    let _ = s.shutdown(Shutdown::Write);
    let until = Instant::now() + linger;
    let mut sink = [0u8; 4096];
    let mut left = 64 * 1024usize;
    while left > 0 {
        let wait = until.saturating_duration_since(Instant::now());
        if wait.is_zero() || s.set_read_timeout(Some(wait)).is_err() {
            break;
        }
        match s.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// The request reader without a socket, for the fuzz targets (`blox-workload/fuzz`, target
/// `http_request`); not an API.
#[doc(hidden)]
pub mod fuzzing {
    use super::{Handler, Head, ReadError, Reply, Source};

    /// A request as the server read it.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Request {
        /// The method.
        pub method: String,
        /// The target (path and query).
        pub target: String,
        /// The headers, names in lower case, in order.
        pub headers: Vec<(String, String)>,
        /// The body.
        pub body: Vec<u8>,
    }

    /// What reading one request came to.
    #[derive(Clone, Debug, PartialEq)]
    pub enum Outcome {
        /// A whole request, handed to the handler.
        Read(Request),
        /// Refused with this status code (and JSON body).
        Refused(u16, serde_json::Value),
        /// The stream ended first: nothing to answer.
        Gone,
    }

    /// `data` delivered `piece` bytes at a time (at least 1).
    struct Pieces<'a> {
        data: &'a [u8],
        piece: usize,
        continues: usize,
    }

    impl Source for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, ReadError> {
            let n = self.piece.max(1).min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
        fn send_continue(&mut self) -> Result<(), ReadError> {
            self.continues += 1;
            Ok(())
        }
    }

    /// Accepts every request but those to `/unauthorized` (`401`, before the body), with
    /// bodies up to its limit, and keeps the request it was handed.
    struct Accept {
        max_body: u64,
        got: std::sync::Mutex<Option<Request>>,
    }

    impl Handler for Accept {
        fn authorize(&self, head: &Head) -> Result<(), Reply> {
            if head.target == "/unauthorized" {
                return Err(super::error(401, "no token"));
            }
            Ok(())
        }
        fn max_body(&self, _: &Head) -> u64 {
            self.max_body
        }
        fn handle(&self, head: &Head, body: &[u8]) -> Reply {
            *self.got.lock().unwrap_or_else(|e| e.into_inner()) = Some(Request {
                method: head.method.clone(),
                target: head.target.clone(),
                headers: head.headers.clone(),
                body: body.to_vec(),
            });
            (200, serde_json::Value::Null)
        }
    }

    /// Read one request from `data`, delivered `piece` bytes at a time, as the server reads
    /// one from a connection, with bodies up to `max_body` bytes; also how many times the
    /// reader sent `100 Continue`.
    pub fn read_request(data: &[u8], piece: usize, max_body: u64) -> (Outcome, usize) {
        let mut src = Pieces {
            data,
            piece,
            continues: 0,
        };
        let h = Accept {
            max_body,
            got: std::sync::Mutex::new(None),
        };
        let outcome = match super::read_request(&mut src, &h) {
            Err(ReadError::Gone) => Outcome::Gone,
            Err(ReadError::Reply((code, body))) => Outcome::Refused(code, body),
            Ok((200, _)) => match h.got.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Some(r) => Outcome::Read(r),
                None => Outcome::Refused(500, serde_json::Value::Null),
            },
            Ok((code, body)) => Outcome::Refused(code, body),
        };
        (outcome, src.continues)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;
    impl Handler for Echo {
        fn authorize(&self, head: &Head) -> Result<(), Reply> {
            match head.header("authorization") {
                Some("ok") => Ok(()),
                _ => Err(error(401, "no")),
            }
        }
        fn max_body(&self, _: &Head) -> u64 {
            100
        }
        fn handle(&self, head: &Head, body: &[u8]) -> Reply {
            (
                200,
                serde_json::json!({"m": head.method, "t": head.target, "b": String::from_utf8_lossy(body)}),
            )
        }
    }

    fn raw(addr: SocketAddr, send: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(send).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    #[test]
    fn bare_cr_lf_nul_and_control_characters_in_a_head_are_refused() {
        use fuzzing::{read_request, Outcome};
        // Found by the fuzz target `http_request`: the target `/unauthor\rZeS` was accepted.
        for head in [
            &b"POST /unauthor\rZeS HTTP/1.1\r\nContent-Length: 0\r\n\r\n"[..],
            b"GET /v1/jobs\x1b[31m HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\nX: y\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\0b\r\n\r\n",
            b"GET / HTTP/1.1\r\nX\x01: y\r\n\r\n",
        ] {
            for piece in [1, usize::MAX] {
                let (got, _) = read_request(head, piece, 0);
                assert!(
                    matches!(got, Outcome::Refused(400, _)),
                    "{:?}: {got:?}",
                    String::from_utf8_lossy(head)
                );
            }
        }
        // A tab in a value is fine.
        let (got, _) = read_request(b"GET / HTTP/1.1\r\nX: a\tb\r\n\r\n", 1, 0);
        assert!(matches!(got, Outcome::Read(_)), "{got:?}");
    }

    #[test]
    fn a_head_of_the_limit_reads_the_same_however_it_arrives() {
        use fuzzing::{read_request, Outcome};
        for size in [
            MAX_HEAD - 4,
            MAX_HEAD - 1,
            MAX_HEAD,
            MAX_HEAD + 1,
            MAX_HEAD + 3,
        ] {
            let line = "GET / HTTP/1.1\r\nX: ";
            // The head is everything before the final CRLF CRLF.
            let head = format!("{line}{}", "y".repeat(size - line.len()));
            assert_eq!(head.len(), size);
            let bytes = format!("{head}\r\n\r\n").into_bytes();
            let answers: Vec<Outcome> = [1, 7, 4096, usize::MAX]
                .into_iter()
                .map(|piece| read_request(&bytes, piece, 0).0)
                .collect();
            assert!(
                answers.windows(2).all(|w| w[0] == w[1]),
                "{size}: {answers:?}"
            );
            if size <= MAX_HEAD {
                assert!(
                    matches!(answers[0], Outcome::Read(_)),
                    "{size}: {answers:?}"
                );
            } else {
                assert!(matches!(answers[0], Outcome::Refused(431, _)), "{size}");
            }
        }
    }

    #[test]
    fn reads_requests_within_limits() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let srv = HttpServer::spawn(
            l,
            Echo,
            HttpLimits {
                max_connections: 4,
                request_timeout: Duration::from_secs(1),
            },
        )
        .unwrap();
        let a = srv.addr();
        let r = raw(
            a,
            b"POST /x?q=1 HTTP/1.1\r\nAuthorization: ok\r\nContent-Length: 3\r\n\r\nabc",
        );
        assert!(r.starts_with("HTTP/1.1 200 "), "{r}");
        assert!(
            r.contains(r#""b":"abc""#) && r.contains(r#""t":"/x?q=1""#),
            "{r}"
        );
        // The token is checked before the body is awaited.
        let r = raw(a, b"POST /x HTTP/1.1\r\nContent-Length: 50\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 401 "), "{r}");
        // `Expect: 100-continue` is answered before the body is awaited.
        let mut c = TcpStream::connect(a).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        c.write_all(b"POST /y HTTP/1.1\r\nAuthorization: ok\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
            .unwrap();
        let mut first = [0u8; 25];
        c.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
        c.write_all(b"hi").unwrap();
        let mut r = String::new();
        c.read_to_string(&mut r).unwrap();
        assert!(
            r.starts_with("HTTP/1.1 200 ") && r.contains(r#""b":"hi""#),
            "{r}"
        );
        let r = raw(
            a,
            b"POST /x HTTP/1.1\r\nAuthorization: ok\r\nContent-Length: 101\r\n\r\n",
        );
        assert!(r.starts_with("HTTP/1.1 413 "), "{r}");
        let r = raw(
            a,
            b"POST /x HTTP/1.1\r\nAuthorization: ok\r\nTransfer-Encoding: chunked\r\n\r\n",
        );
        assert!(r.starts_with("HTTP/1.1 501 "), "{r}");
        // A body that never comes: 408 after the request timeout.
        let r = raw(
            a,
            b"POST /x HTTP/1.1\r\nAuthorization: ok\r\nContent-Length: 9\r\n\r\nab",
        );
        assert!(r.starts_with("HTTP/1.1 408 "), "{r}");
        let big = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "y".repeat(MAX_HEAD));
        let r = raw(a, big.as_bytes());
        assert!(r.starts_with("HTTP/1.1 431 "), "{r}");
        let r = raw(a, b"nonsense\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 400 "), "{r}");
        srv.shutdown();
    }
}
