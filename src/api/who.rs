//! Who holds a TCP port on this machine, for the "port in use" error.

/// The process listening on 127.0.0.1/0.0.0.0:`port`, as `name (pid N)`,
/// when the system tells (Linux: `/proc`; the process may be another
/// user's, then only its socket is seen and nothing is said).
#[cfg(target_os = "linux")]
pub(crate) fn holds_port(port: u16) -> Option<String> {
    let inode = ["/proc/net/tcp", "/proc/net/tcp6"].iter().find_map(|table| listening_inode(table, port))?;
    let wanted = format!("socket:[{inode}]");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().filter(|p| p.chars().all(|c| c.is_ascii_digit())) else { continue };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else { continue };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy() == wanted) {
                let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
                return Some(format!("{} (pid {pid})", comm.trim()));
            }
        }
    }
    None
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn holds_port(_port: u16) -> Option<String> {
    None
}

/// The inode of the socket listening on `port` in a `/proc/net/tcp*` table.
#[cfg(target_os = "linux")]
fn listening_inode(table: &str, port: u16) -> Option<String> {
    const LISTEN: &str = "0A";
    let text = std::fs::read_to_string(table).ok()?;
    text.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let local = cols.get(1)?;
        let (_, p) = local.rsplit_once(':')?;
        (u16::from_str_radix(p, 16).ok()? == port && cols.get(3) == Some(&LISTEN))
            .then(|| cols.get(9).map(|s| (*s).to_owned()))?
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn the_holder_of_a_port_is_this_process() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let who = super::holds_port(port).expect("a holder");
        assert!(who.contains(&format!("pid {}", std::process::id())), "{who}");
    }
}
