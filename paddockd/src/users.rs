//! User names for uids (read-state is per user; the hello reply names the peer).

/// The login name of `uid` from /etc/passwd, else `uid<N>`.
pub fn name_of(uid: u32) -> String {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|passwd| {
            passwd.lines().find_map(|line| {
                let mut fields = line.split(':');
                let name = fields.next()?;
                let id: u32 = fields.nth(1)?.parse().ok()?;
                (id == uid).then(|| name.to_owned())
            })
        })
        .unwrap_or_else(|| format!("uid{uid}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn root_is_uid_zero() {
        assert_eq!(super::name_of(0), "root");
        assert_eq!(super::name_of(4_000_000_000), "uid4000000000");
    }
}
