//! The fixture web server itself: content types, generated routes, and the
//! request log that browser tests assert against.

use std::io::{Read, Write};
use std::net::TcpStream;

use pretty_assertions::assert_eq;
use sha2::{Digest, Sha256};

use crate::common::fixtures::{EXPORT_CSV, FixtureServer, Host, Recorded, UploadedFile, catalogue_row, format_vnd};

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
}

/// A minimal HTTP/1.1 client: one request per connection.
fn http(url: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let mut s = TcpStream::connect(addr).unwrap();
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers =
        lines.filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.to_ascii_lowercase(), v.to_owned())).collect();
    Reply { status, headers, body: raw[split + 4..].to_vec() }
}

fn get(url: &str) -> Reply {
    http(url, "GET", &[], b"")
}

fn recorded_get(host: Host, path: &str, query: Option<&str>) -> Recorded {
    Recorded { host, method: "GET".into(), path: path.into(), query: query.map(Into::into), ..Default::default() }
}

#[test]
fn serves_pages_files_and_generated_routes_and_records_each_request() {
    let srv = FixtureServer::start();

    let page = get(&srv.url("shop-vn.html"));
    assert_eq!((page.status, page.header("content-type")), (200, Some("text/html; charset=utf-8")));
    assert!(page.text().contains("\"price\": 21490000") && page.text().contains("21.490.000 ₫"));
    assert_eq!(
        get(&srv.url("/")).text(),
        std::fs::read_to_string(crate::common::fixtures::site_dir().join("index.html")).unwrap()
    );

    let pdf = get(&srv.url("files/booking.pdf"));
    assert_eq!(
        (pdf.header("content-type"), pdf.header("content-disposition")),
        (Some("application/pdf"), Some("attachment; filename=\"booking.pdf\""))
    );
    assert!(pdf.body.starts_with(b"%PDF-1.4"));
    assert_eq!(get(&srv.url("export.csv")).text(), EXPORT_CSV);
    assert!(get(&srv.url("catalogue?rows=3")).text().contains(&format_vnd(catalogue_row(3).price)));
    assert_eq!(get(&srv.url("status/500")).status, 500);
    assert_eq!(get(&srv.url("no-such-page.html")).status, 404);
    assert!(get(&srv.url("cross-frame")).text().contains(&format!("{}/frame-inner.html", srv.other_origin())));
    let referer = srv.url("keys.html");
    assert_eq!(http(&srv.other_url("search?q=m%C3%A1y+t%C3%ADnh"), "GET", &[("Referer", &referer)], b"").status, 200);

    let mut search = recorded_get(Host::Other, "/search", Some("q=m%C3%A1y+t%C3%ADnh"));
    search.referer = Some(referer);
    assert_eq!(
        srv.requests(),
        vec![
            recorded_get(Host::Main, "/shop-vn.html", None),
            recorded_get(Host::Main, "/", None),
            recorded_get(Host::Main, "/files/booking.pdf", None),
            recorded_get(Host::Main, "/export.csv", None),
            recorded_get(Host::Main, "/catalogue", Some("rows=3")),
            recorded_get(Host::Main, "/status/500", None),
            recorded_get(Host::Main, "/no-such-page.html", None),
            recorded_get(Host::Main, "/cross-frame", None),
            search.clone(),
        ]
    );
    assert_eq!(search.query_pairs(), vec![("q".to_owned(), "máy tính".to_owned())]);
    assert_eq!((srv.hits("search"), srv.hits("/shop-vn.html"), srv.posts()), (1, 1, vec![]));
    srv.clear();
    assert_eq!(srv.requests(), vec![]);
}

#[test]
fn records_urlencoded_and_multipart_posts() {
    let srv = FixtureServer::start();

    let login = http(
        &srv.url("login"),
        "POST",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        b"username=an%40example.vn&password=b%C3%AD+m%E1%BA%ADt",
    );
    assert_eq!((login.status, login.header("location")), (303, Some("/account.html")));

    let photo = b"\x89PNG fake passport photo";
    let b = "----halleyboundary";
    let mut body = format!(
        "--{b}\r\nContent-Disposition: form-data; name=\"ho_ten\"\r\n\r\nNguyễn Văn An\r\n\
         --{b}\r\nContent-Disposition: form-data; name=\"quoc_tich\"\r\n\r\nvn\r\n\
         --{b}\r\nContent-Disposition: form-data; name=\"passport\"; filename=\"ho-chieu.png\"\r\n\
         Content-Type: image/png\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(photo);
    body.extend_from_slice(format!("\r\n--{b}--\r\n").as_bytes());
    let content_type = format!("multipart/form-data; boundary={b}");
    let done = http(&srv.url("submit"), "POST", &[("Content-Type", &content_type)], &body);
    assert_eq!(done.status, 200);
    let text = done.text();
    let file_line = format!("<li class=\"file\">passport: ho-chieu.png ({} bytes)</li>", photo.len());
    assert!(text.contains("Đã nhận hồ sơ") && text.contains(&file_line), "{text}");
    assert!(!text.contains("Nguyễn"), "values are not echoed");

    let form = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    assert_eq!(
        srv.posts(),
        vec![
            Recorded {
                method: "POST".into(),
                path: "/login".into(),
                content_type: Some("application/x-www-form-urlencoded".into()),
                form: form(&[("username", "an@example.vn"), ("password", "bí mật")]),
                ..Default::default()
            },
            Recorded {
                method: "POST".into(),
                path: "/submit".into(),
                content_type: Some("multipart/form-data".into()),
                form: form(&[("ho_ten", "Nguyễn Văn An"), ("quoc_tich", "vn")]),
                files: vec![UploadedFile {
                    field: "passport".into(),
                    file_name: "ho-chieu.png".into(),
                    size: photo.len(),
                    content_type: Some("image/png".into()),
                    sha256: hex::encode(Sha256::digest(photo)),
                }],
                ..Default::default()
            },
        ]
    );
}
