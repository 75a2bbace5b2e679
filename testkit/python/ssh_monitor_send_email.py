# ssh-monitor's e-mail channel as the agent runs it: PTah/ssh-monitor 1.1.2-ipset, `ssh-monitor` lines
# 503-556 (send_email_raw's python3 heredoc), the same environment variables, the same calls in the same
# order. One deviation, for the tests: where the agent's `except Exception: sys.exit(1)` says nothing,
# this prints the SMTP reply code and text to stderr before exiting 1.
import os, smtplib, ssl, sys, socket
from email.message import EmailMessage

host = (os.environ.get("MAIL_SMTP_HOST") or "").strip()
if not host:
    sys.exit(1)
try:
    port = int(os.environ.get("MAIL_SMTP_PORT") or "587")
except ValueError:
    port = 587

from_addr = (os.environ.get("MAIL_FROM") or "").strip()
to_raw = (os.environ.get("MAIL_TO") or "").strip()
if not from_addr or not to_raw:
    sys.exit(1)
recipients = [x.strip() for x in to_raw.split(",") if x.strip()]
if not recipients:
    sys.exit(1)

user = (os.environ.get("MAIL_SMTP_USER") or "").strip()
password = os.environ.get("MAIL_SMTP_PASSWORD") or ""
use_ssl = (os.environ.get("MAIL_USE_SSL") or "0").strip() in ("1", "true", "yes", "on")
use_starttls = (os.environ.get("MAIL_USE_STARTTLS") or "1").strip() in ("1", "true", "yes", "on")

body = os.environ.get("MAIL_BODY") or ""

msg = EmailMessage()
msg["Subject"] = "[ssh-monitor] " + socket.gethostname()
msg["From"] = from_addr
msg["To"] = ", ".join(recipients)
msg.set_content(body, charset="utf-8")

ctx = ssl.create_default_context()
try:
    if use_ssl:
        with smtplib.SMTP_SSL(host, port, context=ctx, timeout=30) as s:
            if user:
                s.login(user, password)
            s.send_message(msg)
    else:
        with smtplib.SMTP(host, port, timeout=30) as s:
            s.ehlo()
            if use_starttls:
                s.starttls(context=ctx)
                s.ehlo()
            if user:
                s.login(user, password)
            s.send_message(msg)
except Exception as e:
    code = getattr(e, "smtp_code", None)
    if code is None and getattr(e, "recipients", None):
        code = list(e.recipients.values())[0][0]
    print("SMTP-ERROR", code, type(e).__name__, str(e)[:300], file=sys.stderr)
    sys.exit(1)
sys.exit(0)
