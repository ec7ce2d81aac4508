//! Addresses: which are loopback, and which to put in a URL for this host's own clients and
//! for the network.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Whether `ip` is a loopback address (IPv4-mapped IPv6 included): only this host reaches it.
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or(v6.is_loopback(), |v4| v4.is_loopback()),
        IpAddr::V4(v4) => v4.is_loopback(),
    }
}

/// The address for this host's own clients (the broker's `local_url`): the bound one, or
/// loopback when bound to all.
pub fn browsable(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, addr.port()).to_string()
}

/// The address to put in the printed URL: the bound one, or, when bound to all addresses, the
/// one this host reaches the network from (the source address of its route out; no packet is
/// sent), else loopback.
pub fn reachable(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => {
            route_source("0.0.0.0:0", "192.0.2.1:9").unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
        }
        IpAddr::V6(v6) if v6.is_unspecified() => {
            route_source("[::]:0", "[2001:db8::1]:9").unwrap_or(IpAddr::V6(Ipv6Addr::LOCALHOST))
        }
        ip => ip,
    };
    SocketAddr::new(ip, addr.port())
}

/// The local address a UDP socket bound to `bind` gets when connected to `to` (a documentation
/// address: connecting a UDP socket only picks the route).
fn route_source(bind: &str, to: &str) -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind(bind).ok()?;
    socket.connect(to).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified()).then_some(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_names_a_reachable_address() {
        let one: SocketAddr = "192.168.1.5:80".parse().unwrap();
        assert_eq!(reachable(one), one);
        let all = reachable("0.0.0.0:80".parse().unwrap());
        assert!(!all.ip().is_unspecified());
        assert_eq!(all.port(), 80);
    }
}
