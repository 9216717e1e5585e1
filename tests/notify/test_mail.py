"""E-mail through a real SMTP server in process (aiosmtpd): address verification, password
reset (works once, expires), notification e-mails with their one-click unsubscribe link and
List-Unsubscribe headers, and the refusals of bad addresses and bad or forged tokens."""

from __future__ import annotations

import re
from email.header import decode_header, make_header
from email.message import Message
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from itsdangerous import URLSafeTimedSerializer

from app.notify import store, tokens
from app.notify.service import Notice
from tests.notify.conftest import PASSWORD, Inbox, Site

pytestmark = pytest.mark.asyncio


def _body(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def _subject(message: Message) -> str:
    """The Subject as the reader sees it (a non-ASCII one travels RFC 2047-encoded)."""
    return str(make_header(decode_header(message["Subject"])))


def _link(message: Message) -> str:
    found = re.search(r"https://hearts\.example(/\S+)", _body(message))
    assert found, _body(message)
    return found.group(1)


def _token(path: str, name: str) -> str:
    return unquote(parse_qs(urlsplit(path).query)[name][0])


def _made_hours_ago(serializer: URLSafeTimedSerializer, payload: list[str], hours: int) -> str:
    """A token signed ``hours`` ago: itsdangerous reads the time through ``get_timestamp``."""
    import time

    class Earlier(URLSafeTimedSerializer):
        pass

    earlier = Earlier(serializer.secret_keys[-1], salt=serializer.salt)
    signer = earlier.make_signer(serializer.salt)
    signer.get_timestamp = lambda: int(time.time()) - hours * 3600  # type: ignore[method-assign]
    return signer.sign(earlier.dump_payload(payload)).decode()


async def _site(site_factory: Any, smtp: tuple[Inbox, int], **overrides: Any) -> Site:
    return await site_factory(
        smtp_host="127.0.0.1", smtp_port=smtp[1], smtp_tls="none", **overrides
    )


async def _verified(
    site: Site, inbox: Inbox, name: str, address: str
) -> tuple[str, dict[str, str]]:
    player, headers = await site.register(name)
    r = await site.http.put("/api/account/email", json={"address": address}, headers=headers)
    assert r.status_code == 202 and r.json() == {"address": address, "verified": False}
    [message] = inbox.to(address)
    r = await site.http.get(_link(message))
    assert r.status_code == 303 and r.headers["location"] == "/?email=verified"
    return player, headers


async def test_verification_then_notification_mails_and_unsubscribe(
    site_factory: Any, smtp: tuple[Inbox, int]
) -> None:
    inbox, _port = smtp
    site = await _site(site_factory, smtp)
    ann, headers = await site.register("Ann")
    # nothing goes to an unverified address but the verification itself
    r = await site.http.put(
        "/api/account/email", json={"address": "ann@example.org"}, headers=headers
    )
    assert r.status_code == 202
    [check] = inbox.to("ann@example.org")
    assert check["Subject"] == "Hearts Online: check your e-mail address"
    await site.services.notifier.process(Notice(ann, "your_turn", "T1"))
    assert len(inbox.to("ann@example.org")) == 1
    r = await site.http.get(_link(check))
    assert r.headers["location"] == "/?email=verified"
    r = await site.http.get("/api/notify/settings", headers=headers)
    assert r.json()["email"] == {"address": "ann@example.org", "verified": True}

    await site.services.notifier.process(Notice(ann, "your_turn", "T1", {"table_name": "Friday"}))
    turn = inbox.to("ann@example.org")[-1]
    assert turn["Subject"] == "Hearts Online: Your turn"
    assert "https://hearts.example/?table=T1" in _body(turn)
    unsubscribe = turn["List-Unsubscribe"].strip("<>")
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.startswith("https://hearts.example/api/notify/unsubscribe?token=")
    assert unsubscribe in _body(turn)
    # game_over is off by e-mail unless chosen
    await site.services.notifier.process(Notice(ann, "game_over", "T1"))
    assert len(inbox.to("ann@example.org")) == 2

    # one click, no sign-in (RFC 8058 POST, as a mail client sends it)
    path = unsubscribe.removeprefix("https://hearts.example")
    r = await site.http.post(path, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200
    assert store.choices(site.services.database, ann)["your_turn"] == {"push": True, "email": False}
    await site.services.notifier.process(Notice(ann, "your_turn", "T1"))
    assert len(inbox.to("ann@example.org")) == 2
    # the page link works too (and again: the same answer)
    r = await site.http.get(path)
    assert r.status_code == 200 and "your turn" in r.text


async def test_password_reset_works_once_and_expires(
    site_factory: Any, smtp: tuple[Inbox, int]
) -> None:
    inbox, _port = smtp
    site = await _site(site_factory, smtp)
    ann, _headers = await _verified(site, inbox, "Ann", "Ann@Example.org")
    # by address (any case) or by account name; unknown ones answer the same
    for account in ("ann@example.ORG", "ann", "nobody@example.org", "nobody"):
        r = await site.http.post("/api/account/password/forgot", json={"account": account})
        assert r.status_code == 202 and r.json() == {"ok": True}
    resets = [m for m in inbox.to("Ann@Example.org") if "new password" in m["Subject"]]
    assert len(resets) == 2
    token = _token(_link(resets[0]), "reset")

    r = await site.http.post(
        "/api/account/password/reset", json={"token": token, "password": "short"}
    )
    assert r.status_code == 400  # too weak: nothing changed, the link still works
    new = "a brand new passphrase"
    r = await site.http.post("/api/account/password/reset", json={"token": token, "password": new})
    assert r.status_code == 204
    r = await site.http.post(
        "/api/account/password/reset", json={"token": token, "password": "yet another phrase"}
    )
    assert r.status_code == 400 and r.json()["detail"]["code"] == "token_used"
    # the second link was made for the old password: used up as well
    second = _token(_link(resets[1]), "reset")
    r = await site.http.post(
        "/api/account/password/reset", json={"token": second, "password": "yet another phrase"}
    )
    assert r.json()["detail"]["code"] == "token_used"
    r = await site.http.post("/api/account/login", json={"name": "Ann", "password": new})
    assert r.status_code == 200
    r = await site.http.post("/api/account/login", json={"name": "Ann", "password": PASSWORD})
    assert r.status_code == 401

    # an expired link (made 2 hours ago; links last HEARTS_PASSWORD_RESET_MINUTES = 60)
    fingerprint = store.password_fingerprint_of(site.services.database, ann)
    assert fingerprint is not None
    secret = site.services.settings.effective_secret()
    serializer = URLSafeTimedSerializer(secret, salt=tokens.RESET)
    old = _made_hours_ago(serializer, [ann, fingerprint], 2)
    r = await site.http.post("/api/account/password/reset", json={"token": old, "password": new})
    assert r.status_code == 400 and r.json()["detail"]["code"] == "token_expired"


@pytest.mark.parametrize(
    "token",
    [
        "nonsense",
        "",
        "x" * 600,
        # a verification token is not a reset token (salts differ)
        "VERIFY",
        # signed with another key
        "FORGED",
    ],
)
async def test_bad_and_forged_tokens_are_refused(
    site_factory: Any, smtp: tuple[Inbox, int], token: str
) -> None:
    site = await _site(site_factory, smtp)
    ann, _headers = await site.register("Ann")
    if token == "VERIFY":
        token = tokens.make(site.services.settings.effective_secret(), tokens.VERIFY, [ann, "x"])
    elif token == "FORGED":
        token = tokens.make("another secret entirely", tokens.RESET, [ann, "0" * 16])
    r = await site.http.post(
        "/api/account/password/reset", json={"token": token, "password": "x" * 20}
    )
    assert r.status_code in (400, 422)
    if r.status_code == 400:
        assert r.json()["detail"]["code"] == "bad_token"
    r = await site.http.get("/api/notify/unsubscribe", params={"token": token})
    assert r.status_code in (400, 422)
    r = await site.http.get("/api/account/email/verify", params={"token": token})
    assert r.status_code in (303, 422)
    if r.status_code == 303:
        assert r.headers["location"] == "/?email=bad_token"
    assert store.choices(site.services.database, ann)["your_turn"]["email"] is True


@pytest.mark.parametrize(
    "address",
    [
        "plain",
        "a@b",
        "two@@example.org",
        "x@example.org\r\nBcc: y@example.org",
        "<a@example.org>",
        5,
    ],
)
async def test_bad_addresses_are_refused(
    site_factory: Any, smtp: tuple[Inbox, int], address: object
) -> None:
    inbox, _port = smtp
    site = await _site(site_factory, smtp)
    ann, headers = await site.register("Ann")
    r = await site.http.put("/api/account/email", json={"address": address}, headers=headers)
    assert r.status_code == 422
    assert store.address_of(site.services.database, ann) is None
    assert inbox.messages == []


async def test_guests_have_no_address_and_the_log_stands_in_for_smtp(
    site_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    caplog.set_level(logging.INFO, logger="app.notify")
    site: Site = await site_factory()  # no SMTP host: e-mails go to the log
    assert "e-mails are written to the log" in caplog.text
    r = await site.http.post("/api/guest", json={"name": "Wanderer"})
    guest_headers = {"Authorization": f"Bearer {r.json()['token']}"}
    r = await site.http.put(
        "/api/account/email", json={"address": "w@example.org"}, headers=guest_headers
    )
    assert r.status_code == 403 and r.json()["detail"]["code"] == "not_registered"
    _ann, headers = await site.register("Ann")
    r = await site.http.put(
        "/api/account/email", json={"address": "ann@example.org"}, headers=headers
    )
    assert r.status_code == 202
    assert "To: ann@example.org" in caplog.text
    assert "/api/account/email/verify?token=" in caplog.text


async def test_turn_emails_within_a_window_come_as_one_digest(
    site_factory: Any, smtp: tuple[Inbox, int]
) -> None:
    inbox, _port = smtp
    # a window longer than the test: it is closed below by the call its timer makes
    site = await _site(site_factory, smtp, email_digest_minutes=60)
    ann, _headers = await _verified(site, inbox, "Ann", "ann@example.org")
    notifier = site.services.notifier
    await notifier.process(Notice(ann, "your_turn", "T1", {"table_name": "First"}))
    assert [m["Subject"] for m in inbox.to("ann@example.org")][1:] == ["Hearts Online: Your turn"]
    # within the window: gathered, not sent one by one
    await notifier.process(Notice(ann, "your_turn", "T2", {"table_name": "Second"}))
    await notifier.process(Notice(ann, "your_turn", "T3", {"table_name": "Third"}))
    await notifier.process(Notice(ann, "time_almost_up", "T2", {"table_name": "Second"}))
    assert len(inbox.to("ann@example.org")) == 2
    digests = notifier.mail.digests
    assert await digests.flush(ann) == 3  # the window closes
    digest = inbox.to("ann@example.org")[2]
    assert digest["Subject"] == "Hearts Online: your move in 2 games"
    body = _body(digest)
    assert "2 games wait for your move" in body
    assert "https://hearts.example/?table=T2" in body and "https://hearts.example/?table=T3" in body
    # T1's notice went out alone before the window (not its link: the body's signed tokens are
    # random letters, and "T1" turned up in one)
    assert "?table=T1" not in body
    assert "Your move in Second is due soon" in body  # the newest notice of a table
    assert digest["List-Unsubscribe"].startswith("<https://hearts.example/api/notify/unsubscribe")
    # nothing gathered since: closing again sends nothing
    assert await digests.flush(ann) == 0
    assert len(inbox.to("ann@example.org")) == 3


async def test_emails_are_written_in_the_players_language(
    site_factory: Any, smtp: tuple[Inbox, int]
) -> None:
    """The language the page told the server (PUT /api/me/language) writes the e-mails: the
    greeting, the notice, the footer, the subject and the digest's count, in French; another
    player, who never said, reads English."""
    inbox, _port = smtp
    site = await _site(site_factory, smtp, email_digest_minutes=60)
    ann, headers = await _verified(site, inbox, "Ann", "ann@example.org")
    bob, _bob_headers = await _verified(site, inbox, "Bob", "bob@example.org")
    r = await site.http.put("/api/me/language", json={"language": "fr"}, headers=headers)
    assert r.status_code == 204, r.text
    notifier = site.services.notifier
    await notifier.process(Notice(ann, "your_turn", "T1", {"table_name": "Vendredi"}))
    await notifier.process(Notice(bob, "your_turn", "T1", {"table_name": "Friday"}))
    french, english = inbox.to("ann@example.org")[-1], inbox.to("bob@example.org")[-1]
    assert _subject(french) == "Hearts Online : À vous de jouer"
    body = _body(french)
    assert body.startswith("Bonjour Ann,")
    assert "C'est à vous de jouer dans Vendredi." in body
    assert "Vous recevez cet e-mail parce que vous l'avez demandé" in body
    assert "Ne plus recevoir d'e-mails de ce type (à vous de jouer) : https://" in body
    assert "Hello" not in body and "You get this" not in body
    assert english["Subject"] == "Hearts Online: Your turn"
    assert _body(english).startswith("Hello Bob,")
    # the digest of the window, in French with its count
    await notifier.process(Notice(ann, "your_turn", "T2", {"table_name": "Samedi"}))
    await notifier.process(Notice(ann, "your_turn", "T3", {"table_name": "Dimanche"}))
    assert await notifier.mail.digests.flush(ann) == 2
    digest = inbox.to("ann@example.org")[-1]
    assert _subject(digest) == "Hearts Online : à vous de jouer dans 2 parties"
    body = _body(digest)
    assert "2 parties attendent votre coup :" in body
    assert "C'est à vous de jouer dans Samedi." in body and "Dimanche" in body
    assert "Un seul e-mail regroupe vos tours" in body


async def test_account_emails_are_written_in_the_players_language(
    site_factory: Any, smtp: tuple[Inbox, int]
) -> None:
    """The address check and the password reset: the player's language if the server knows
    it, else the asking page's (its cookie, then Accept-Language), else English; the hours
    and minutes through the catalog's plurals."""
    inbox, _port = smtp
    site = await _site(site_factory, smtp, email_verify_hours=1)
    _ann, headers = await site.register("Ann")
    r = await site.http.put("/api/me/language", json={"language": "de"}, headers=headers)
    assert r.status_code == 204, r.text
    r = await site.http.put(
        "/api/account/email",
        json={"address": "ann@example.org"},
        headers={**headers, "Accept-Language": "fr"},  # her setting wins
    )
    assert r.status_code == 202
    [check] = inbox.to("ann@example.org")
    assert _subject(check) == "Hearts Online: bestätige deine E-Mail-Adresse"
    body = _body(check)
    assert body.startswith("Hallo Ann,")
    assert "Öffne diesen Link, um zu bestätigen, dass ann@example.org dir gehört:" in body
    assert "Er gilt 1 Stunde." in body and "Hello" not in body

    # no setting: the page's cookie, then its Accept-Language
    _bob, bob_headers = await site.register("Bob")
    r = await site.http.put(
        "/api/account/email",
        json={"address": "bob@example.org"},
        headers={**bob_headers, "Accept-Language": "fr-CA,en;q=0.5"},
    )
    [french] = inbox.to("bob@example.org")
    assert _subject(french) == "Hearts Online : vérifiez votre adresse e-mail"
    assert _body(french).startswith("Bonjour Bob,") and "Il est valable 1 heure." in _body(french)
    r = await site.http.put(
        "/api/account/email",
        json={"address": "bob@example.net"},
        headers={**bob_headers, "Accept-Language": "fr", "Cookie": "hearts_lang=es"},
    )
    [spanish] = inbox.to("bob@example.net")
    assert _subject(spanish) == "Hearts Online: comprueba tu dirección de correo"
    assert "Sirve durante 1 hora." in _body(spanish)
    r = await site.http.get(_link(spanish))
    assert r.headers["location"] == "/?email=verified"
    r = await site.http.get(_link(check))
    assert r.headers["location"] == "/?email=verified"

    # the reset: Ann's German whoever asks; Bob (no setting) in the asking page's Dutch
    for account, language in (("Ann", "en"), ("Bob", "nl")):
        r = await site.http.post(
            "/api/account/password/forgot",
            json={"account": account},
            headers={"Accept-Language": language},
        )
        assert r.status_code == 202
    german = inbox.to("ann@example.org")[-1]
    assert _subject(german) == "Hearts Online: ein neues Passwort"
    assert "ein neues Passwort für dein Konto Ann angefordert" in _body(german)
    assert "Der Link gilt einmal, 60 Minuten lang." in _body(german)
    dutch = inbox.to("bob@example.net")[-1]
    assert _subject(dutch) == "Hearts Online: een nieuw wachtwoord"
    assert _body(dutch).startswith("Hallo Bob,")
    assert "De link werkt één keer, 60 minuten lang." in _body(dutch)
    token = _token(_link(dutch), "reset")
    r = await site.http.post(
        "/api/account/password/reset", json={"token": token, "password": "a brand new passphrase"}
    )
    assert r.status_code == 204
