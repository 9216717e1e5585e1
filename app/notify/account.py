"""E-mail for accounts (docs/notifications.md): an address with verification, "forgot
password" by e-mail, and the one-click unsubscribe link of notification e-mails.

The links carry signed tokens (app.notify.tokens) and need no sign-in. "Forgot password"
always answers 202, whether or not the account or address exists (nobody learns which
addresses are known); a reset e-mail goes only to a verified address.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.api.deps import PlayerDep
from app.api.limits import limit_address, limit_or_refuse
from app.api.strict import StrictRoute
from app.db.auth import revoke_all
from app.db.players import AccountError
from app.i18n import from_cookie_header, pick_language
from app.notify import store, tokens
from app.notify.api import Context, ContextDep, fail
from app.notify.mail import MailChannel
from app.notify.service import KINDS, Notice
from app.notify.texts import words
from app.store.keys import limits_prefix

router = APIRouter(prefix="/api", tags=["notifications"], route_class=StrictRoute)

# A plain address: one @, a dot in the domain, no spaces or angle brackets (what a person
# types; nothing that could add a header).
ADDRESS = re.compile(
    r"[^@\s<>()\[\],;:\\\"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251})\.[A-Za-z]{2,63}"
)
# E-mails one player (verification) or one address (reset) may cause per hour.
MAILS_PER_HOUR = 5
TokenQuery = Annotated[str, Query(min_length=1, max_length=tokens.MAX_TOKEN_CHARS)]


class AddressIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    address: str = Field(min_length=3, max_length=254)


class ForgotIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    account: str = Field(min_length=1, max_length=254)  # account name or e-mail address


class ResetIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    token: str = Field(min_length=1, max_length=tokens.MAX_TOKEN_CHARS)
    password: str = Field(min_length=1, max_length=1024)


def _language(request: Request, setting: str | None) -> str:
    """An account e-mail's language: the player's setting, else the asking page's (its
    cookie, then Accept-Language: app.i18n's order), else English."""
    return pick_language(
        setting=setting,
        cookie=from_cookie_header(request.headers.get("cookie")),
        accept=request.headers.get("accept-language"),
    )


def _mail(services: Context) -> MailChannel:
    channel: MailChannel = services.notifier.mail
    return channel


async def _limit(services: Context, name: str, *keys: str) -> None:
    await limit_or_refuse(
        services.redis,
        name,
        *keys,
        attempts=MAILS_PER_HOUR,
        window_seconds=3600,
        prefix=limits_prefix(services.settings.redis_namespace),
        code="too_many_emails",
        what="e-mails asked for",
    )


@router.put("/account/email", status_code=202)
async def set_email(
    services: ContextDep,
    player: PlayerDep,
    request: Request,
    body: Annotated[AddressIn, Body()],
) -> dict[str, Any]:
    """Set my address and send it a verification link (nothing else goes to it before)."""
    if player.is_guest:
        fail(403, "not_registered", "only an account has an e-mail address; register first")
    address = body.address.strip()
    if not ADDRESS.fullmatch(address):
        fail(422, "bad_email", "this is not an e-mail address (name@example.org)")
    await _limit(services, "email_verify", player.id)
    mail = _mail(services)
    stored = await run_in_threadpool(store.set_address, services.database, player.id, address)
    if not stored.verified:
        link = mail.links.verify(player.id, address)
        lang = _language(request, stored.language)
        hours = services.settings.email_verify_hours
        message = mail.verification(lang, player.name, address, link, hours)
        await mail.mailer.send_async(message)
    return {"address": stored.address, "verified": stored.verified}


@router.delete("/account/email", status_code=204)
async def remove_email(services: ContextDep, player: PlayerDep) -> Response:
    if not await run_in_threadpool(store.remove_address, services.database, player.id):
        fail(404, "no_email", "you have no e-mail address")
    return Response(status_code=204)


@router.get("/account/email/verify")
async def verify_email(services: ContextDep, token: TokenQuery) -> RedirectResponse:
    """The link in the verification e-mail: back to the site, which says how it went
    (``/?email=verified``, ``token_expired``, ``bad_token``)."""
    secret = services.settings.effective_secret()
    max_age = services.settings.email_verify_hours * 3600
    try:
        player_id, address = tokens.read(secret, tokens.VERIFY, token, max_age)
    except (tokens.TokenError, ValueError) as error:
        code = error.code if isinstance(error, tokens.TokenError) else "bad_token"
        return RedirectResponse(f"/?email={code}", status_code=303)
    done = await run_in_threadpool(store.mark_verified, services.database, player_id, address)
    return RedirectResponse("/?email=" + ("verified" if done else "bad_token"), status_code=303)


@router.post("/account/password/forgot", status_code=202)
async def forgot_password(
    services: ContextDep, request: Request, body: Annotated[ForgotIn, Body()]
) -> dict[str, Any]:
    """Send a reset link to the verified address of the account (named by account name or
    address). Always 202: the answer says nothing about which accounts exist."""
    await _limit(services, "password_forgot_address", limit_address(request))
    await _limit(services, "password_forgot", body.account.strip().casefold())
    database = services.database
    account = body.account.strip()
    if "@" in account:
        player_ids = await run_in_threadpool(store.verified_accounts, database, account)
    else:
        found = await run_in_threadpool(store.account_by_name, database, account)
        player_ids = [found] if found else []
    mail = _mail(services)
    minutes = services.settings.password_reset_minutes
    for player_id in player_ids:
        address = await run_in_threadpool(store.address_of, database, player_id)
        fingerprint = await run_in_threadpool(store.password_fingerprint_of, database, player_id)
        if address is None or not address.verified or fingerprint is None:
            continue
        link = mail.links.reset(player_id, fingerprint)
        lang = _language(request, address.language)
        message = mail.password_reset(lang, address, link, minutes)
        await mail.mailer.send_async(message)
    return {"ok": True}


@router.post("/account/password/reset", status_code=204)
async def reset_password(services: ContextDep, body: Annotated[ResetIn, Body()]) -> Response:
    """Set a new password with the link's token: once, before it expires; every session of
    the account ends."""
    secret = services.settings.effective_secret()
    max_age = services.settings.password_reset_minutes * 60
    try:
        player_id, fingerprint = tokens.read(secret, tokens.RESET, body.token, max_age)
    except tokens.TokenError as error:
        fail(400, error.code, error.message)
    except ValueError:
        fail(400, "bad_token", "this link is not valid")
    try:
        done = await run_in_threadpool(
            store.reset_password, services.database, player_id, fingerprint, body.password
        )
    except AccountError as error:
        fail(400, error.code, error.message)
    if not done:
        fail(400, "token_used", "this link was used already; ask for a new one")
    await run_in_threadpool(revoke_all, services.database, player_id)
    return Response(status_code=204)


async def _unsubscribe(services: Context, token: str) -> str:
    """Turn e-mail off for the token's kind; the kind's title."""
    try:
        player_id, kind = tokens.read(
            services.settings.effective_secret(), tokens.UNSUBSCRIBE, token
        )
    except tokens.TokenError as error:
        fail(400, error.code, error.message)
    except ValueError:
        fail(400, "bad_token", "this link is not valid")
    if kind not in KINDS:
        fail(400, "bad_token", "this link is not valid")
    await run_in_threadpool(
        store.set_choices, services.database, player_id, {kind: {"email": False}}
    )
    return words(Notice(player_id, kind)).title.lower()


@router.get("/notify/unsubscribe", response_class=HTMLResponse)
async def unsubscribe_page(services: ContextDep, token: TokenQuery) -> HTMLResponse:
    """The link in a notification e-mail: one click, no sign-in."""
    title = await _unsubscribe(services, token)
    return HTMLResponse(
        "<!doctype html><html lang=en><meta charset=utf-8><title>Unsubscribed</title>"
        f"<p>You will get no more e-mails about <b>{title}</b>. "
        'Choose again in the settings of <a href="/">Hearts Online</a>.</p></html>'
    )


@router.post("/notify/unsubscribe")
async def unsubscribe_one_click(services: ContextDep, token: TokenQuery) -> dict[str, Any]:
    """RFC 8058 one-click (List-Unsubscribe-Post), as mail clients send it."""
    await _unsubscribe(services, token)
    return {"ok": True}
