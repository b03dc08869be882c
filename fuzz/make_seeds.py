#!/usr/bin/env python3
"""Write the seed corpora in fuzz/seeds/ (committed; run again after editing).

Requests as real clients send them: curl, Chrome, Firefox, Safari, a
coding agent asking for Markdown, Googlebot, wget, conditional requests,
HEAD, an OPTIONS preflight, and malformed ones.

- seeds/service/NAME: the raw bytes of one connection (HTTP/1.1 or h2c).
- seeds/select/NAME: the same requests in the `select` target's format,
  `method 0xFF path 0xFF Accept 0xFF Accept-Encoding 0xFF If-None-Match
  0xFF If-Modified-Since` (an empty field is an absent header, 0xFE splits
  a field into header lines).

The entity tags are those of the default build (base URL
http://127.0.0.1:8080); stale ones still make fine seeds.
"""

import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

CHROME_UA = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
             "Chrome/131.0.0.0 Safari/537.36")
FIREFOX_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
SAFARI_UA = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 "
             "(KHTML, like Gecko) Version/18.1 Safari/605.1.15")
GOOGLEBOT_UA = ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")

CHROME_ACCEPT = ("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,"
                 "image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7")
FIREFOX_ACCEPT = ("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,"
                  "image/webp,image/png,image/svg+xml,*/*;q=0.8")
SAFARI_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
AGENT_ACCEPT = "text/markdown, text/plain;q=0.9, text/html;q=0.5, */*;q=0.1"

ETAG_SELECT_JSON_BR = '"670157f35646cd78-br"'
ETAG_HOME_HTML_BR = '"3e91e3318c9a0e0f-br"'
ETAG_HOME_MD_GZIP = '"75d61b4013bfe641-gzip"'
ETAG_PAGE_HTML_GZIP = '"fd4bef02c43c490d-gzip"'
ETAG_LLMS_IDENTITY = '"7eea5d2e9deccdd4-identity"'
LAST_MODIFIED = "Sun, 22 Nov 2026 00:00:00 GMT"


def request(method, target, headers, version="HTTP/1.1", host="docs.example.com"):
    lines = [f"{method} {target} {version}"]
    if host is not None:
        lines.append(f"Host: {host}")
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# name -> (method, target, [(header, value)])
REQUESTS = {
    "curl": ("GET", "/api/reference.json", [
        ("User-Agent", "curl/8.11.0"), ("Accept", "*/*")]),
    "curl-compressed": ("GET", "/api/reference/select.json", [
        ("User-Agent", "curl/8.11.0"), ("Accept", "*/*"),
        ("Accept-Encoding", "deflate, gzip, br, zstd")]),
    "curl-head": ("HEAD", "/api/reference/select.json", [
        ("User-Agent", "curl/8.11.0"), ("Accept", "*/*"), ("Accept-Encoding", "br")]),
    "chrome": ("GET", "/", [
        ("Connection", "keep-alive"), ("Upgrade-Insecure-Requests", "1"),
        ("User-Agent", CHROME_UA), ("Accept", CHROME_ACCEPT),
        ("Sec-Fetch-Site", "none"), ("Sec-Fetch-Mode", "navigate"),
        ("Sec-Fetch-User", "?1"), ("Sec-Fetch-Dest", "document"),
        ("Accept-Encoding", "gzip, deflate, br, zstd"),
        ("Accept-Language", "en-US,en;q=0.9")]),
    "chrome-revalidate": ("GET", "/api/select", [
        ("User-Agent", CHROME_UA), ("Accept", CHROME_ACCEPT),
        ("Accept-Encoding", "gzip, deflate, br, zstd"), ("Cache-Control", "max-age=0"),
        ("If-None-Match", ETAG_PAGE_HTML_GZIP), ("If-Modified-Since", LAST_MODIFIED)]),
    "firefox": ("GET", "/api/insert", [
        ("User-Agent", FIREFOX_UA), ("Accept", FIREFOX_ACCEPT),
        ("Accept-Language", "en-US,en;q=0.5"), ("Accept-Encoding", "gzip, deflate, br, zstd"),
        ("Connection", "keep-alive"), ("Upgrade-Insecure-Requests", "1"),
        ("Sec-Fetch-Dest", "document"), ("Sec-Fetch-Mode", "navigate"),
        ("Sec-Fetch-Site", "none"), ("Priority", "u=0, i")]),
    "safari": ("GET", "/", [
        ("Accept", SAFARI_ACCEPT), ("Sec-Fetch-Site", "none"),
        ("Accept-Encoding", "gzip, deflate, br"), ("Sec-Fetch-Mode", "navigate"),
        ("User-Agent", SAFARI_UA), ("Accept-Language", "en-GB,en;q=0.9"),
        ("Sec-Fetch-Dest", "document"), ("Connection", "keep-alive"),
        ("If-None-Match", ETAG_HOME_HTML_BR)]),
    "agent-markdown": ("GET", "/api/update", [
        ("User-Agent", "claude-code/1.0"), ("Accept", AGENT_ACCEPT),
        ("Accept-Encoding", "gzip, br")]),
    "agent-home-markdown": ("GET", "/", [
        ("Accept", "text/markdown"), ("Accept-Encoding", "gzip"),
        ("If-None-Match", f'W/{ETAG_HOME_MD_GZIP}')]),
    "agent-llms": ("GET", "/llms-full.txt", [
        ("User-Agent", "python-httpx/0.28.1"), ("Accept", "*/*"),
        ("Accept-Encoding", "gzip, deflate")]),
    "googlebot": ("GET", "/sitemap.xml", [
        ("User-Agent", GOOGLEBOT_UA), ("Accept", "text/html,application/xhtml+xml,"
                                                  "application/xml;q=0.9,*/*;q=0.8"),
        ("Accept-Encoding", "gzip, deflate, br"), ("From", "googlebot(at)googlebot.com")]),
    "googlebot-robots": ("GET", "/robots.txt", [
        ("User-Agent", GOOGLEBOT_UA), ("Accept-Encoding", "gzip, deflate, br"),
        ("If-Modified-Since", LAST_MODIFIED)]),
    "wget": ("GET", "/llms.txt", [
        ("User-Agent", "Wget/1.24.5"), ("Accept", "*/*"), ("Accept-Encoding", "identity"),
        ("Connection", "Keep-Alive")]),
    "conditional-etag": ("GET", "/api/reference/select.json", [
        ("Accept", "application/json"), ("Accept-Encoding", "br"),
        ("If-None-Match", f'"stale", {ETAG_SELECT_JSON_BR}')]),
    "conditional-star": ("GET", "/llms.txt", [
        ("If-None-Match", "*")]),
    "conditional-weak-identity": ("HEAD", "/llms.txt", [
        ("Accept-Encoding", "identity;q=1, *;q=0"),
        ("If-None-Match", f"W/{ETAG_LLMS_IDENTITY}")]),
    "conditional-date-old": ("GET", "/openapi.json", [
        ("Accept-Encoding", "gzip;q=0.5, br;q=0.8"),
        ("If-Modified-Since", "Sunday, 06-Nov-94 08:49:37 GMT")]),
    "conditional-date-asctime": ("GET", "/.well-known/api-catalog", [
        ("If-Modified-Since", "Sun Nov 22 00:00:00 2026")]),
    "head": ("HEAD", "/api/delete", [("Accept", "text/html"), ("Accept-Encoding", "gzip")]),
    "options-preflight": ("OPTIONS", "/api/reference.json", [
        ("Origin", "https://app.example.org"), ("Access-Control-Request-Method", "GET"),
        ("Access-Control-Request-Headers", "if-none-match"), ("User-Agent", CHROME_UA),
        ("Accept", "*/*"), ("Sec-Fetch-Mode", "cors")]),
    "options-star": ("OPTIONS", "*", []),
    "post": ("POST", "/api/reference.json", [
        ("Content-Type", "application/json"), ("Content-Length", "2"),
        ("Accept", "application/json")]),
    "not-acceptable": ("GET", "/api/reference.json", [
        ("Accept", "text/html"), ("Accept-Encoding", "br;q=0, gzip;q=0, identity;q=0")]),
    "not-found-page": ("GET", "/nope", [("Accept", CHROME_ACCEPT), ("Accept-Encoding", "br")]),
    "not-found-markdown": ("GET", "/missing/page", [("Accept", "text/markdown")]),
    "reference-typo": ("GET", "/api/reference/selct.json", [("Accept-Encoding", "gzip")]),
    "invalid-name": ("GET", "/api/reference/Select.json", []),
    "name-too-long": ("GET", "/api/reference/" + "a" * 80 + ".json", []),
    "uri-too-long": ("GET", "/" + "a" * 2100, []),
    "redirect": ("GET", "/API/Select/", [("Accept", "text/html")]),
    "percent-encoded": ("GET", "/api/%73elect%2Emd", [("Accept", "*/*")]),
    "query": ("GET", "/api/reference/insert.json?pretty=1", [
        ("Accept", "application/json;charset=utf-8;q=0.9, */*;q=0.1")]),
    "accept-quoted": ("GET", "/", [
        ("Accept", 'text/markdown;charset="UTF-8";q=0.8, text/html;level=1'),
        ("Accept-Encoding", 'br;q=1.000, gzip;q=0.999, x-gzip, *;q=0')]),
    "multi-line-lists": ("GET", "/api/reference/where.json", [
        ("Accept-Encoding", "gzip;q=0.2"), ("Accept-Encoding", "br;q=0.1"),
        ("If-None-Match", '"a"'), ("If-None-Match", '"b", "c"')]),
}

# Malformed or unusual raw connections, for the service target only.
RAW = {
    "malformed-no-version": b"GET /\r\n\r\n",
    "malformed-lf-only": b"GET /api/select HTTP/1.1\nHost: x\nAccept: text/markdown\n\n",
    "malformed-space-in-target": b"GET /api/ select HTTP/1.1\r\nHost: x\r\n\r\n",
    "malformed-header-no-colon": b"GET / HTTP/1.1\r\nHost x\r\n\r\n",
    "malformed-obs-fold": b"GET / HTTP/1.1\r\nHost: x\r\nAccept: text/html,\r\n text/markdown\r\n\r\n",
    "malformed-bad-length": b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\n",
    "malformed-te-and-length": (b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                b"Content-Length: 3\r\n\r\n0\r\n\r\n"),
    "malformed-control-byte": b"GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n",
    "malformed-truncated": b"GET /api/reference.json HTTP/1.1\r\nHost: x\r\nAcc",
    "malformed-binary": bytes(range(256)),
    "http10": b"GET /robots.txt HTTP/1.0\r\n\r\n",
    "absolute-form": b"GET http://docs.example.com/llms.txt HTTP/1.1\r\nHost: docs.example.com\r\n\r\n",
    "chunked-body": (b"GET /api/reference/select.json HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
    "expect-continue": (b"PUT /api/reference.json HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                        b"Content-Length: 4\r\n\r\n"),
    "pipelined": (request("GET", "/", [("Accept-Encoding", "br")])
                  + request("HEAD", "/api/select.md", [])
                  + request("GET", "/api/reference/selct.json", [("Connection", "close")])),
    # A chunked body, then a malformed head while the large response is being
    # written: with a small pipe, hyper writes its 400 into that response.
    "chunked-then-malformed": (b"GET /openapi.json HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                               b"5\r\nhello\r\n0\r\n\r\n H"),
    # A head hyper refuses, then the HTTP/2 preface: hyper closes without a 400.
    "refused-head-then-h2-preface": (b"POST / HTTP/1.1\r\nTransfer-Encoding: chknked\r\n\r\n"
                                     b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    # h2c with prior knowledge: the preface, an empty SETTINGS frame, and a
    # HEADERS frame (END_STREAM | END_HEADERS) for GET / with HPACK literals.
    "h2c-prior-knowledge": (
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
        + (lambda block: len(block).to_bytes(3, "big") + b"\x01\x05\x00\x00\x00\x01" + block)(
            b"\x82"  # :method GET
            b"\x86"  # :scheme http
            b"\x84"  # :path /
            b"\x41\x0bexample.com"  # :authority, literal with indexing
            b"\x00\x06accept\x0dtext/markdown"  # literal without indexing, new name
        )
    ),
}


def select_seed(method, target, headers):
    path = target.split("?", 1)[0]
    fields = [method.encode(), path.encode()]
    for name in ("Accept", "Accept-Encoding", "If-None-Match", "If-Modified-Since"):
        lines = [value.encode() for header, value in headers if header.lower() == name.lower()]
        fields.append(b"\xfe".join(lines))
    while fields and fields[-1] == b"":
        fields.pop()
    return b"\xff".join(fields)


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    for target in ("select", "service"):
        directory = os.path.join(HERE, "seeds", target)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
    for name, (method, target, headers) in REQUESTS.items():
        write(os.path.join(HERE, "seeds", "service"), name,
              request(method, target, headers))
        write(os.path.join(HERE, "seeds", "select"), name,
              select_seed(method, target, headers))
    for name, data in RAW.items():
        write(os.path.join(HERE, "seeds", "service"), name, data)
    # select-only oddities: absent vs. empty headers, several lines, bad bytes.
    select = os.path.join(HERE, "seeds", "select")
    write(select, "empty-accept-encoding", b"GET\xff/api/reference.json\xff\xff\xfe")
    write(select, "bad-method", b"G(T\xff/")
    write(select, "non-utf8-header", b"GET\xff/\xfftext/\x80html\xffbr\x81")
    write(select, "options-missing", b"OPTIONS\xff/nope\xffapplication/json")


if __name__ == "__main__":
    main()
