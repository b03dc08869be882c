vcl 4.1;

# Varnish in front of refserve: one cached object per representation that
# refserve serves, whatever the spelling of the request's Accept,
# Accept-Encoding and Accept-Language.
#
#   varnishd -a :6081 -f deploy/varnish.vcl -p http_gzip_support=off -s malloc,256m
#
# `-p http_gzip_support=off` matters: with Varnish's gzip support on, it
# rewrites every Accept-Encoding to gzip (br clients would never get br) and
# weakens the ETag of anything it gunzips for a client.
#
# refserve already says how long each response may be kept (documents:
# CDN-Cache-Control, a year plus a day of stale-if-error, for a cache that a
# deploy purges; Cache-Control: 60 seconds for 404/400/414, an hour for
# 308s, no-store for 405/406) and what it varies on (Vary). This file makes
# the request headers canonical so that Vary matches, makes Varnish keep
# exactly what those allow (308s and 400s too, no grace beyond it), adds
# X-Cache (HIT, MISS or PASS), and never touches ETag, Vary or
# Cache-Control. /mcp, the Model Context Protocol
# endpoint (POST), is passed to refserve as sent and never stored. /search
# keeps its query, normalised, in the cache key (refserve_search_query).
#
# The canonical request headers, as refserve would decide:
#
#   Accept-Encoding  "br", "gzip", absent (identity), or "identity;q=0"
#                    (the client accepts no coding refserve has: refserve
#                    answers 406, no-store); on page URLs, "dcb", "dcz" or
#                    both ahead of that when the client names them and
#                    sends Available-Dictionary (see below)
#   Available-Dictionary
#                    as sent on page URLs from a client that names dcb or
#                    dcz; absent otherwise, since refserve then ignores it
#   Dictionary-ID    absent: refserve gives its dictionary no id and reads
#                    none
#   Accept           page URLs (/, /api/ and /api/<name>): "text/markdown",
#                    "text/html", or "application/json" (neither is
#                    acceptable: refserve answers 406, no-store); so a
#                    client without Accept gets an error on these URLs
#                    (/api/nope) as HTML, not as JSON
#                    documents (*.json, *.md, *.txt, *.xml, /.well-known/…,
#                    /healthz): absent (one representation each)
#                    other URLs (404s, redirects, /search): as sent
#   Accept-Language  negotiated addresses (/, /api/, /api/<name>, their
#                    .md twins /index.md, /api/index.md, /api/<name>.md,
#                    and /search): "en" or "zh-Hans", the language refserve
#                    would choose; absent elsewhere (the fixed addresses
#                    /en/…, /zh-hans/…, the JSON API, the documents, the
#                    errors), where refserve does not read it
#
# Compression dictionaries (RFC 9842): refserve sends a page compressed
# against its dictionary (Content-Encoding dcb or dcz) only to a request
# whose Available-Dictionary names it, and marks such responses, and every
# other response of that URL, `Vary: Accept, Accept-Encoding,
# Available-Dictionary`. Varnish keeps one object per value
# of those headers, so a dcb body is only ever served again for the same
# dictionary hash; a client without one shares the br object with everyone.
# Simplification: a client that weighs dcb or dcz below br still has them
# put ahead of br (browsers send them all at q=1).
#
# A CDN's lifetime and purges: refserve gives every document a year in
# CDN-Cache-Control (RFC 9213) and names what it is made of in
# Surrogate-Key; this file keeps a document that long (browsers still get
# the hour of Cache-Control) and, from the addresses in refserve_purgers
# only, drops what a deploy changed (deploy/purge, after `refserve changes`):
#
#   PURGE <address>                       every object at the address, its
#                                         queries (/search?q=…) included
#   PURGE / with `Purge-Tag: <tag>`       every object tagged <tag>
#
# Both are bans (lurker-friendly: they test the stored object alone), so a
# dropped object is fetched again on the next request for it, and every
# other object stays a hit. Surrogate-Key, Cache-Tag, Surrogate-Control and
# CDN-Cache-Control are for this cache: clients are not sent them.
#
# tests/varnish.rs runs this file (with its own backend port) against a
# real refserve.

import std;

# Who may purge: the machine itself (deploy/purge runs beside Varnish). Add
# the host that deploys, never a client's network.
acl refserve_purgers {
    "127.0.0.1";
    "::1";
}

backend refserve {
    .host = "127.0.0.1";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 10s;
    .between_bytes_timeout = 10s;
    .probe = {
        .url = "/healthz";
        .interval = 5s;
        .timeout = 2s;
        .window = 5;
        .threshold = 3;
        # Healthy from the start: refserve answers as soon as it listens.
        .initial = 3;
    }
}

sub vcl_recv {
    if (req.method == "PURGE") {
        call refserve_purge;
    }

    # /mcp (the Model Context Protocol endpoint; /mcp/ too, which refserve
    # answers alike), whatever the method and the query string, goes to
    # refserve exactly as sent, before anything
    # below rewrites it, and is never stored nor coalesced: each answer
    # depends on the request's body and its JSON-RPC id, and an agent's
    # Accept (`application/json, text/event-stream`) is not a page's.
    # `pass`, not `pipe`: Varnish 7 sends a POST's body on a pass, and
    # keeps the connection to answer the next request (X-Cache: PASS).
    if (req.url ~ "^/mcp/?(\?|$)") {
        return (pass);
    }

    # OPTIONS (CORS preflights), and the methods refserve refuses with a 405,
    # go to refserve as they are and are never stored.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }

    # refserve ignores the query string but on /search (and a language's
    # /zh-hans/search): one object per path, and no cache busting with
    # ?anything. A search's query is its answer's, so it stays, as
    # refserve reads it (refserve_search_query).
    if (req.url ~ "^/(?:(?!api/)[a-z]{2,3}(?:-[a-z0-9]{2,8})*/)?search(\?|$)") {
        call refserve_search_query;
    } else {
        set req.url = regsub(req.url, "\?.*$", "");
    }

    call refserve_dictionary_codings;
    call refserve_accept_encoding;
    if (req.url ~ "^/(api/([a-z]+)?)?$") {
        call refserve_accept_page;
        if (req.http.X-Refserve-Dictionary && req.http.Accept-Encoding) {
            set req.http.Accept-Encoding = req.http.X-Refserve-Dictionary + ", " + req.http.Accept-Encoding;
        } elsif (req.http.X-Refserve-Dictionary) {
            set req.http.Accept-Encoding = req.http.X-Refserve-Dictionary;
        }
    } elsif (req.url ~ "\.(json|md|txt|xml)$"
        || req.url ~ "^/(api/reference|\.well-known|dictionaries)/"
        || req.url == "/healthz") {
        # Documents with one representation (the JSON API and its errors,
        # Markdown twins, llms.txt, sitemap, robots.txt, the API catalog,
        # the compression dictionary):
        # they do not vary on Accept, so a stored copy answers any Accept;
        # without the header refserve never refuses one with a 406 for its
        # Accept either, so a hit and a miss give the same answer.
        unset req.http.Accept;
    }
    # Any other URL is an error or a redirect: as sent, so that a browser
    # still gets an HTML 404 and a program a JSON one (kept 60 s at most).

    # The addresses that negotiate their language (the pages, their
    # Markdown twins, /search) get the one refserve would choose; nothing
    # else reads Accept-Language (the fixed addresses /en/…, /zh-hans/…,
    # the JSON API, the documents, the errors), so there it goes and they
    # stay one object. An address that comes to negotiate its language
    # must be added here.
    if (req.url ~ "^/(?:api/(?:[a-z]+)?|(?:index|api/[a-z]+)\.md|search(?:\?.*)?)?$") {
        call refserve_accept_language;
    } else {
        unset req.http.Accept-Language;
    }

    if (!req.http.Accept-Encoding || req.http.Accept-Encoding !~ "^dc") {
        # Without dcb or dcz refserve ignores Available-Dictionary.
        unset req.http.Available-Dictionary;
    }
    unset req.http.Dictionary-ID;
    unset req.http.X-Refserve-Dictionary;

    # refserve keeps no per-user state: Cookie and Authorization change
    # nothing (and every stored response is `public`), so unlike Varnish's
    # built-in vcl_recv they do not force a pass.
    return (hash);
}

# PURGE: from refserve_purgers only (403 otherwise). With `Purge-Tag`, a
# ban of every object whose Surrogate-Key names that tag; without, a ban of
# every object at the request's path, with any query. Tags and paths are
# refserve's own (letters, digits, `-`, `.`, `:`, `/`, `_`): anything else
# is refused (400), so nothing sent becomes a pattern.
sub refserve_purge {
    if (client.ip !~ refserve_purgers) {
        return (synth(403, "Forbidden"));
    }
    if (req.http.Purge-Tag) {
        if (req.http.Purge-Tag !~ "^[a-z0-9][a-z0-9:._-]*$") {
            return (synth(400, "Bad Purge-Tag"));
        }
        ban("obj.http.Surrogate-Key ~ (^|\s)" + regsuball(req.http.Purge-Tag, "\.", "\\.") + "(\s|$)");
        return (synth(200, "Purged tag " + req.http.Purge-Tag));
    }
    if (req.url !~ "^/[A-Za-z0-9/._-]*$") {
        return (synth(400, "Bad address"));
    }
    ban("obj.http.X-Refserve-Url ~ ^" + regsuball(req.url, "\.", "\\.") + "(\?|$)");
    return (synth(200, "Purged " + req.url));
}

# /search?… → /search?q=<the query as refserve reads it> (and a
# language's /zh-hans/search?… alike), so that every spelling of one query
# is one object (per Accept, and at /search per Accept-Language: an answer
# varies on them alone, and is sent in identity): the first `q` alone,
# every run of spaces (`+`, or an escaped space, tab or line break) one
# `+`, none at either end; without a `q`, the path alone (which refserve
# answers with its 400).
# Letters keep their case, as refserve reads them (a word in capitals may
# rank otherwise); escapes keep theirs too (`%2b` and `%2B`, one answer,
# are two objects).
# Simplifications: any other parameter is dropped (as on pages, where the
# whole query string is), and of several `q` the first counts, where
# refserve answers either with a 400 (query_invalid).
sub refserve_search_query {
    if (req.url ~ "^[^?]*\?(?:.*?&)??q=") {
        set req.http.X-Refserve-Q = regsub(req.url, "^[^?]*\?(?:.*?&)??q=([^&#]*).*$", "\1");
        set req.http.X-Refserve-Q = regsuball(req.http.X-Refserve-Q, "%(?:20|09|0[aAbBcCdD])", "+");
        set req.http.X-Refserve-Q = regsuball(req.http.X-Refserve-Q, "\++", "+");
        set req.http.X-Refserve-Q = regsuball(req.http.X-Refserve-Q, "^\+|\+$", "");
        set req.url = regsub(req.url, "\?.*$", "?q=") + req.http.X-Refserve-Q;
        unset req.http.X-Refserve-Q;
    } else {
        set req.url = regsub(req.url, "\?.*$", "");
    }
}

# X-Refserve-Dictionary → "dcb", "dcz" or "dcb, dcz": the dictionary
# codings the client names with a weight above 0, when it also sends
# Available-Dictionary; unset otherwise. `*` does not name them.
sub refserve_dictionary_codings {
    unset req.http.X-Refserve-Dictionary;
    if (req.http.Accept-Encoding && req.http.Available-Dictionary) {
        std.collect(req.http.Available-Dictionary);
        set req.http.X-Refserve-AE = std.tolower(regsuball(req.http.Accept-Encoding, "[ \t]", ""));
        if (req.http.X-Refserve-AE ~ "^(?:.*?,)?dcb(?:;q=(?:1(?:\.0{0,3})?|0\.(?:[1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9])))?(?:,.*)?$") {
            set req.http.X-Refserve-Dictionary = "dcb";
        }
        if (req.http.X-Refserve-AE ~ "^(?:.*?,)?dcz(?:;q=(?:1(?:\.0{0,3})?|0\.(?:[1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9])))?(?:,.*)?$") {
            if (req.http.X-Refserve-Dictionary) {
                set req.http.X-Refserve-Dictionary = "dcb, dcz";
            } else {
                set req.http.X-Refserve-Dictionary = "dcz";
            }
        }
        unset req.http.X-Refserve-AE;
    }
}

# Accept-Encoding → "br", "gzip", unset (identity) or "identity;q=0", as
# refserve chooses (RFC 9110 §12.5.3): each coding takes the weight of the
# member naming it, else that of `*`, else 0; identity stays acceptable (at a
# tiny weight) unless `identity;q=0` or `*;q=0` excludes it; the highest
# weight wins and ties go to br, then gzip, then identity. Codings and `q`
# are case-insensitive, `x-gzip` is gzip, several header lines are one list.
# Simplifications: a member with a malformed weight, or other parameters, is
# ignored (as refserve does), and if a coding is named twice the first
# well-formed member counts.
sub refserve_accept_encoding {
    std.collect(req.http.Accept-Encoding);
    if (req.http.Accept-Encoding) {
        set req.http.X-Refserve-AE = std.tolower(regsuball(req.http.Accept-Encoding, "[ \t]", ""));

        if (req.http.X-Refserve-AE ~ "^(?:.*?,)?\*(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$") {
            set req.http.X-Refserve-Star = regsub(req.http.X-Refserve-AE, "^(?:.*?,)?\*(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$", "q\1");
        }

        if (req.http.X-Refserve-AE ~ "^(?:.*?,)?br(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$") {
            set req.http.X-Refserve-Br = regsub(req.http.X-Refserve-AE, "^(?:.*?,)?br(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$", "q\1");
        } elsif (req.http.X-Refserve-Star) {
            set req.http.X-Refserve-Br = req.http.X-Refserve-Star;
        } else {
            set req.http.X-Refserve-Br = "q0";
        }

        if (req.http.X-Refserve-AE ~ "^(?:.*?,)?(?:x-)?gzip(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$") {
            set req.http.X-Refserve-Gzip = regsub(req.http.X-Refserve-AE, "^(?:.*?,)?(?:x-)?gzip(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$", "q\1");
        } elsif (req.http.X-Refserve-Star) {
            set req.http.X-Refserve-Gzip = req.http.X-Refserve-Star;
        } else {
            set req.http.X-Refserve-Gzip = "q0";
        }

        if (req.http.X-Refserve-AE ~ "^(?:.*?,)?identity(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$") {
            set req.http.X-Refserve-Identity = regsub(req.http.X-Refserve-AE, "^(?:.*?,)?identity(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,.*)?$", "q\1");
        } elsif (req.http.X-Refserve-Star) {
            set req.http.X-Refserve-Identity = req.http.X-Refserve-Star;
        } else {
            set req.http.X-Refserve-Identity = "q0.001";
        }

        # "q" alone is a member without a weight: 1.
        set req.http.X-Refserve-Br = regsub(req.http.X-Refserve-Br, "^q$", "q1");
        set req.http.X-Refserve-Gzip = regsub(req.http.X-Refserve-Gzip, "^q$", "q1");
        set req.http.X-Refserve-Identity = regsub(req.http.X-Refserve-Identity, "^q$", "q1");

        if (std.real(regsub(req.http.X-Refserve-Br, "^q", ""), 0) > 0
            && std.real(regsub(req.http.X-Refserve-Br, "^q", ""), 0) >= std.real(regsub(req.http.X-Refserve-Gzip, "^q", ""), 0)
            && std.real(regsub(req.http.X-Refserve-Br, "^q", ""), 0) >= std.real(regsub(req.http.X-Refserve-Identity, "^q", ""), 0)) {
            set req.http.Accept-Encoding = "br";
        } elsif (std.real(regsub(req.http.X-Refserve-Gzip, "^q", ""), 0) > 0
            && std.real(regsub(req.http.X-Refserve-Gzip, "^q", ""), 0) >= std.real(regsub(req.http.X-Refserve-Identity, "^q", ""), 0)) {
            set req.http.Accept-Encoding = "gzip";
        } elsif (std.real(regsub(req.http.X-Refserve-Identity, "^q", ""), 0) > 0) {
            unset req.http.Accept-Encoding;
        } else {
            set req.http.Accept-Encoding = "identity;q=0";
        }

        unset req.http.X-Refserve-AE;
        unset req.http.X-Refserve-Star;
        unset req.http.X-Refserve-Br;
        unset req.http.X-Refserve-Gzip;
        unset req.http.X-Refserve-Identity;
    }
}

# Accept on a page URL → "text/markdown", "text/html" or "application/json",
# as refserve chooses (RFC 9110 §12.5.1): Markdown and HTML each take the
# weight of `text/markdown` (resp. `text/html`) if named, else of `text/*`,
# else of `*/*`, else 0; Markdown needs a strictly higher weight (ties go to
# HTML); when both weigh 0 refserve answers 406, which "application/json"
# reproduces. No header, or one without a single type/subtype member,
# accepts everything: HTML. Simplifications: the first well-formed member
# naming a range counts; on `text/markdown` and `text/html` only a `charset`
# of utf-8 may precede `q` (as refserve requires), on wildcards nothing may.
sub refserve_accept_page {
    std.collect(req.http.Accept);
    if (!req.http.Accept || req.http.Accept !~ "[^ \t,;/]/[^ \t,;/]") {
        set req.http.Accept = "text/html";
    } else {
        set req.http.X-Refserve-Accept = std.tolower(regsuball(req.http.Accept, "[ \t]", ""));

        if (req.http.X-Refserve-Accept ~ "^(?:.*?,)?text/\*(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$") {
            set req.http.X-Refserve-Wild = regsub(req.http.X-Refserve-Accept, "^(?:.*?,)?text/\*(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$", "q\1");
        } elsif (req.http.X-Refserve-Accept ~ "^(?:.*?,)?\*/\*(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$") {
            set req.http.X-Refserve-Wild = regsub(req.http.X-Refserve-Accept, "^(?:.*?,)?\*/\*(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$", "q\1");
        } else {
            set req.http.X-Refserve-Wild = "q0";
        }

        if (req.http.X-Refserve-Accept ~ {"^(?:.*?,)?text/markdown(?:;charset="?utf-8"?)?(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$"}) {
            set req.http.X-Refserve-Markdown = regsub(req.http.X-Refserve-Accept, {"^(?:.*?,)?text/markdown(?:;charset="?utf-8"?)?(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$"}, "q\1");
        } else {
            set req.http.X-Refserve-Markdown = req.http.X-Refserve-Wild;
        }

        if (req.http.X-Refserve-Accept ~ {"^(?:.*?,)?text/html(?:;charset="?utf-8"?)?(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$"}) {
            set req.http.X-Refserve-Html = regsub(req.http.X-Refserve-Accept, {"^(?:.*?,)?text/html(?:;charset="?utf-8"?)?(?:;q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)(?:;[^,]*)?)?(?:,.*)?$"}, "q\1");
        } else {
            set req.http.X-Refserve-Html = req.http.X-Refserve-Wild;
        }

        set req.http.X-Refserve-Markdown = regsub(req.http.X-Refserve-Markdown, "^q$", "q1");
        set req.http.X-Refserve-Html = regsub(req.http.X-Refserve-Html, "^q$", "q1");

        if (std.real(regsub(req.http.X-Refserve-Markdown, "^q", ""), 0) > std.real(regsub(req.http.X-Refserve-Html, "^q", ""), 0)) {
            set req.http.Accept = "text/markdown";
        } elsif (std.real(regsub(req.http.X-Refserve-Html, "^q", ""), 0) > 0) {
            set req.http.Accept = "text/html";
        } else {
            set req.http.Accept = "application/json";
        }

        unset req.http.X-Refserve-Accept;
        unset req.http.X-Refserve-Wild;
        unset req.http.X-Refserve-Markdown;
        unset req.http.X-Refserve-Html;
    }
}

# Accept-Language on a negotiated address → "en" or "zh-Hans", the
# language refserve chooses (RFC 9110 §12.5.4, RFC 4647 §3.4 lookup;
# src/core/negotiate/language.rs): ranges by weight, ties in the order
# written, weight 0 dropped; the first that reaches a language wins, else
# English. A range reaches a language by its language and script, not its
# spelling: `zh`, `zh-CN`, `zh-SG`, `zh-Hans-TW` are Simplified Chinese;
# `zh-TW`, `zh-HK`, `zh-MO`, `zh-Hant`, and `zh` in the other regions
# where CLDR's likely subtags write it in Traditional (the list below),
# reach nothing; `en` and `en-*` (`en-Latn-US`, not `en-Dsrt`) reach
# English. `*` is the first language no range of weight 0 rules out (if
# both are: the range that would have won without it, else English). The
# header is read as refserve reads it: case-insensitive, several lines one
# list, spaces and tabs only around `,` and `;`, a member with another
# parameter than `q` (or a malformed one) passed over, the first 16
# members alone.
# Simplification: of several ranges reaching one language (or several
# `*`), the first with a weight above 0 counts, not the heaviest (browsers
# write them heaviest first).
#
# The languages served today are named here. For a new one: classify its
# ranges into a letter of their own (below `Z` and `E`: language, script,
# and the regions where CLDR writes it in another script, as refserve's
# `Language::offered` knows them), mark its weight-0 ranges, extract its
# weight, compare it with the others in the order of the site's languages
# (English, the default, first), let `*` fall to it when those before are
# ruled out, and set its tag. tests/varnish/languages.rs fails until the
# tags set here, and the regions listed, are those refserve serves.
sub refserve_accept_language {
    std.collect(req.http.Accept-Language);
    if (req.http.Accept-Language) {
        set req.http.X-Refserve-AL = std.tolower(req.http.Accept-Language);
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "^[ \t]+|[ \t]+$", "");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "[ \t]*([,;])[ \t]*", "\1");
        # Members refserve passes over go (an empty one, a bad weight,
        # another parameter); what is left is a name, perhaps with `;q=`.
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "(?<=^|,)(?![-!#$%&'*+.^_`|~0-9a-z/]+(?:;q=(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?(?:,|$))[^,]*(?:,|$)", "");
        set req.http.X-Refserve-AL = regsub(req.http.X-Refserve-AL, ",$", "");
        set req.http.X-Refserve-AL = regsub(req.http.X-Refserve-AL, "^((?:[^,]*,){15}[^,]*),.*$", "\1");

        # Each range's name → the language it reaches: S for `*`, Z for
        # Simplified Chinese, E for English, N for none.
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "(?<=^|,)\*(?=;|,|$)", "S");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "(?<=^|,)zh(?!-(?!(?:hans|zzzz)(?:-|;|,|$))[a-z]{4}(?:-|;|,|$))(?!(?:-zzzz)?-(?:au|bn|gb|gf|hk|id|mo|pa|pf|ph|sr|th|tw|us|vn)(?:-|;|,|$))(?:-[a-z0-9]{1,8})*(?=;|,|$)", "Z");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "(?<=^|,)en(?!-(?!(?:latn|zzzz)(?:-|;|,|$))[a-z]{4}(?:-|;|,|$))(?:-[a-z0-9]{1,8})*(?=;|,|$)", "E");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "(?<=^|,)(?![SZE](?:;|,|$))[^;,]+", "N");

        # Weights: none is 1; a range of weight 0 rules its language out
        # of `*` (z, e) and reaches nothing.
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "(?<=^|,)([SZEN])(?=,|$)", "\1;q=1");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "\.(?=,|$)", "");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "Z;q=0(?:\.0*)?(?=,|$)", "z");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "E;q=0(?:\.0*)?(?=,|$)", "e");
        set req.http.X-Refserve-AL = regsuball(req.http.X-Refserve-AL, "[SN];q=0(?:\.0*)?(?=,|$)", "n");

        if (req.http.X-Refserve-AL ~ "(?:^|,)Z;") {
            set req.http.X-Refserve-Zh = regsub(req.http.X-Refserve-AL, "^(?:.*?,)??Z;q=([0-9.]+)(?:,.*)?$", "\1");
        } else {
            set req.http.X-Refserve-Zh = "0";
        }
        if (req.http.X-Refserve-AL ~ "(?:^|,)E;") {
            set req.http.X-Refserve-En = regsub(req.http.X-Refserve-AL, "^(?:.*?,)??E;q=([0-9.]+)(?:,.*)?$", "\1");
        } else {
            set req.http.X-Refserve-En = "0";
        }
        if (req.http.X-Refserve-AL ~ "(?:^|,)S;") {
            set req.http.X-Refserve-Star = regsub(req.http.X-Refserve-AL, "^(?:.*?,)??S;q=([0-9.]+)(?:,.*)?$", "\1");
        } else {
            set req.http.X-Refserve-Star = "0";
        }

        # The range that wins without `*`, then whether `*` outweighs it
        # (or weighs as much and comes first).
        if (std.real(req.http.X-Refserve-Zh, 0) > std.real(req.http.X-Refserve-En, 0)
            || (std.real(req.http.X-Refserve-Zh, 0) > 0
                && std.real(req.http.X-Refserve-Zh, 0) == std.real(req.http.X-Refserve-En, 0)
                && req.http.X-Refserve-AL ~ "^[^ZE]*Z")) {
            set req.http.Accept-Language = "zh-Hans";
            if (std.real(req.http.X-Refserve-Star, 0) > std.real(req.http.X-Refserve-Zh, 0)
                || (std.real(req.http.X-Refserve-Star, 0) == std.real(req.http.X-Refserve-Zh, 0)
                    && req.http.X-Refserve-AL ~ "^[^SZ]*S")) {
                set req.http.X-Refserve-Wildcard = "1";
            }
        } elsif (std.real(req.http.X-Refserve-En, 0) > 0) {
            set req.http.Accept-Language = "en";
            if (std.real(req.http.X-Refserve-Star, 0) > std.real(req.http.X-Refserve-En, 0)
                || (std.real(req.http.X-Refserve-Star, 0) == std.real(req.http.X-Refserve-En, 0)
                    && req.http.X-Refserve-AL ~ "^[^SE]*S")) {
                set req.http.X-Refserve-Wildcard = "1";
            }
        } else {
            set req.http.Accept-Language = "en";
            if (std.real(req.http.X-Refserve-Star, 0) > 0) {
                set req.http.X-Refserve-Wildcard = "1";
            }
        }
        # `*`: English unless ruled out, then Chinese unless ruled out,
        # else the range above.
        if (req.http.X-Refserve-Wildcard && req.http.X-Refserve-AL !~ "(?:^|,)e(?:,|$)") {
            set req.http.Accept-Language = "en";
        } elsif (req.http.X-Refserve-Wildcard && req.http.X-Refserve-AL !~ "(?:^|,)z(?:,|$)") {
            set req.http.Accept-Language = "zh-Hans";
        }

        unset req.http.X-Refserve-AL;
        unset req.http.X-Refserve-Zh;
        unset req.http.X-Refserve-En;
        unset req.http.X-Refserve-Star;
        unset req.http.X-Refserve-Wildcard;
    } else {
        set req.http.Accept-Language = "en";
    }
}

sub vcl_hash {
    # refserve's answers do not depend on Host (its base URL is baked in at
    # build time), so every host name it is reached by shares one object.
    hash_data(req.url);
    return (lookup);
}

sub vcl_backend_response {
    # The address an object is at, for PURGE's bans (unset on delivery).
    set beresp.http.X-Refserve-Url = bereq.url;
    # A document: kept as long as CDN-Cache-Control says (a deploy purges
    # what it changed), and served stale for a day after, while it is
    # fetched again or while refserve is down (stale-while-revalidate,
    # stale-if-error).
    if (beresp.http.CDN-Cache-Control ~ "(?i)(^|,)\s*max-age=[0-9]+\s*(,|$)") {
        set beresp.ttl = std.duration(regsub(beresp.http.CDN-Cache-Control, "(?i)^(?:.*,)?\s*max-age=([0-9]+)\s*(?:,.*)?$", "\1s"), 0s);
        set beresp.grace = std.duration(regsub(beresp.http.CDN-Cache-Control, "(?i)^(?:.*,)?\s*stale-if-error=([0-9]+)\s*(?:,.*)?$", "\1s"), 0s);
        return (deliver);
    }
    # Varnish 7.1 stores only some statuses by itself (not 303, 308 nor
    # 400); refserve marks its redirects and 400 errors `public,
    # max-age=…`: honour that max-age.
    if ((beresp.status == 303 || beresp.status == 308 || beresp.status == 400)
        && beresp.ttl <= 0s
        && beresp.http.Cache-Control ~ "(?i)(^|,)\s*max-age=[0-9]+\s*(,|$)"
        && beresp.http.Cache-Control !~ "(?i)no-store|no-cache|private") {
        set beresp.ttl = std.duration(regsub(beresp.http.Cache-Control, "(?i)^(?:.*,)?\s*max-age=([0-9]+)\s*(?:,.*)?$", "\1s"), 0s);
    }
    # Serve stale only where refserve allows it: stale-while-revalidate
    # (which Varnish already turns into grace) on documents; not Varnish's
    # default 10 s of grace on errors and redirects, which would keep a 404
    # past its max-age=60.
    if (beresp.http.Cache-Control !~ "(?i)stale-while-revalidate") {
        set beresp.grace = 0s;
    }
}

sub vcl_deliver {
    unset resp.http.X-Refserve-Url;
    unset resp.http.Surrogate-Key;
    unset resp.http.Cache-Tag;
    unset resp.http.Surrogate-Control;
    unset resp.http.CDN-Cache-Control;
    # HIT: from the cache; MISS: fetched and stored; PASS: fetched, not
    # stored (/mcp, not GET/HEAD, or refserve said no-store).
    if (obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
