"""The address of the client behind the site's proxies, for the throttles of logins and signups.

Behind nginx every request comes from nginx: ``REMOTE_ADDR`` is the proxy's address, and the
client's is the last one nginx appended to ``X-Forwarded-For``. That header is the client's to
write, though, so it is believed only from the proxies the operator names
(``ARENA_TRUSTED_PROXIES``, addresses or networks; ``127.0.0.1,::1`` by default, nginx on this
host as ``arena web --production`` runs it): starting from ``REMOTE_ADDR``, each trusted hop
hands over to the address it appended, right to left, and the first address that is no trusted
proxy is the client. A request that does not come from a trusted proxy is its own client,
whatever its headers say.

Used by django-axes (``AXES_CLIENT_IP_CALLABLE``) and by the signup limit (django-ratelimit).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(items: Iterable[str]) -> tuple[Network, ...]:
    """Addresses and networks (``10.0.0.0/8``) as networks; ValueError quoting a bad one.

    >>> parse_networks(["127.0.0.1", "10.0.0.0/8"])
    (IPv4Network('127.0.0.1/32'), IPv4Network('10.0.0.0/8'))
    """
    out = []
    for item in items:
        try:
            out.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"ARENA_TRUSTED_PROXIES: {item!r} is not an address or a network"
            ) from None
    return tuple(out)


@lru_cache(maxsize=8)
def _trusted(items: tuple[str, ...]) -> tuple[Network, ...]:
    return parse_networks(items)


def _address(text: str) -> Address | None:
    try:
        found = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def client_address(remote: str, forwarded: str, trusted: Iterable[Network]) -> str | None:
    """The client's address from ``REMOTE_ADDR`` and ``X-Forwarded-For`` (see the module).

    >>> nginx = parse_networks(["127.0.0.1"])
    >>> client_address("127.0.0.1", "6.6.6.6, 203.0.113.9", nginx)
    '203.0.113.9'
    >>> client_address("198.51.100.7", "127.0.0.1", nginx)  # not from the proxy: not believed
    '198.51.100.7'
    """
    networks = tuple(trusted)
    current = _address(remote)
    if current is None:
        return None
    hops = [hop for hop in forwarded.split(",") if hop.strip()]
    while hops and any(current in net for net in networks):
        previous = _address(hops.pop())
        if previous is None:  # garbage in the header: the last trusted hop is all we know
            break
        current = previous
    return str(current)


def client_ip(request: Any) -> str | None:
    """The address of the client of a Django request (None when it has none)."""
    trusted = _trusted(tuple(settings.ARENA_TRUSTED_PROXIES))
    return client_address(
        request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", ""), trusted
    )
