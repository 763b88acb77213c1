"""Vendors' documented token formats: the table ctxguard.secrets.formats scans for.

Every format starts at (or around) a literal that its vendor puts in every token (`ghp_`,
`dop_v1_`, `hooks.slack.com`): its anchors. No pattern can match a line break (every character
class leaves them out), so a replacement never joins lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ctxguard.secrets.values import looks_random, not_words


@dataclass(frozen=True)
class Format:
    """One vendor format: its kind, the literals it is anchored on, and its pattern, matched at
    the anchor's position; group `group` (0: all of it) is the secret, if `check` accepts it."""

    kind: str
    anchors: tuple[str, ...]
    source: str  # the pattern, compiled the first time an anchor of it is met (most runs meet few)
    group: int = 0
    check: Callable[[str], bool] | None = None
    ignore_case: bool = False
    back: int = 0  # how far before the anchor the token may start (`_mmk`, `Q~` sit inside it)

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source, self.ignore_case)


def _f(
    kind: str,
    anchors: str,
    pattern: str,
    group: int = 0,
    check: Callable[[str], bool] | None = None,
    ignore_case: bool = False,
    back: int = 0,
) -> Format:
    return Format(kind, tuple(anchors.split()), pattern, group, check, ignore_case, back)


@functools.cache
def _compiled(source: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(source, re.I if ignore_case else 0)


_B = r"(?<![A-Za-z0-9_-])"  # a token starts here (not inside a longer word)
_E = r"(?![A-Za-z0-9_-])"  # and ends here
_BD = r"(?<![A-Za-z0-9])"
_CODE_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # `request.headers.authorization`: code
_ED = r"(?![A-Za-z0-9])"


def _letters_mixed(value: str) -> bool:
    """Hugging Face's random part: letters only, both cases."""
    tail = value.split("_", 2)[-1]
    return any(c.isupper() for c in tail) and any(c.islower() for c in tail)


# Order matters where formats overlap: Anthropic's `sk-ant-` before OpenAI's `sk-`.
FORMATS: tuple[Format, ...] = (
    _f("aws_access_key", "AKIA ASIA ABIA ACCA A3T", rf"{_BD}(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{{16}}{_ED}"),
    _f("github_token", "ghp_ gho_ ghu_ ghs_ ghr_", rf"{_B}gh[pousr]_[A-Za-z0-9_]{{36,255}}{_E}"),
    _f("github_token", "github_pat_", rf"{_B}github_pat_[A-Za-z0-9_]{{50,255}}{_E}"),
    _f(
        "gitlab_token",
        "glpat- glptt- gldt- glrt- glcbt- glft- glimt- gloas- glsoat- glagent- glffct- glcsot- glwt- gltst-",
        r"(?<![\w-])gl[a-z]{2,6}-[\w-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?(?![\w-])",
    ),
    _f("gitlab_token", "GR1348941", r"(?<![\w-])GR1348941[\w-]{20,}(?![\w-])"),
    _f("slack_token", "xoxa- xoxb- xoxp- xoxo- xoxs- xoxr-", r"(?<![\w-])xox[abposr]-\d{8,}-[A-Za-z0-9-]{8,}(?![\w-])"),
    _f("slack_token", "xoxe- xoxe.", r"(?<![\w-])xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{40,}(?![\w-])"),
    # Legacy workspace and refresh tokens (`xoxa-2-…`, `xoxr-…`) and other shapes of the same
    # prefixes: 16 characters or more after the prefix, two digits among them (not a
    # placeholder such as `xoxp-1-RANDOMSTRINGHERE`), not inside `xoxe.xoxp-…`.
    _f(
        "slack_token",
        "xoxa- xoxr- xoxe- xoxo- xoxb- xoxp- xoxs-",
        r"(?<![\w.-])xox[abeoprs]-(?=(?:[A-Za-z-]*\d){2})[A-Za-z0-9-]{16,}(?![\w-])",
    ),
    _f("slack_token", "xapp-", r"(?<![\w-])xapp-\d-[A-Za-z0-9-]{10,}(?![\w-])"),
    _f("slack_webhook", "hooks.slack.com", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{16,}"),
    _f(
        "discord_webhook",
        "discord.com/api/webhooks discordapp.com/api/webhooks",
        r"discord(?:app)?\.com/api/webhooks/\d+/[\w-]{20,}",
    ),
    _f(
        "teams_webhook",
        "webhook.office.com outlook.office.com/webhook",
        r"[\w.-]*(?:webhook\.office\.com|outlook\.office\.com)/webhook(?:b2)?/[\w@/.-]{20,}",
    ),
    _f("anthropic_key", "sk-ant-", r"(?<![\w-])sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}(?![\w-])"),
    _f(
        "openai_key",
        "sk-proj- sk-svcacct- sk-admin- sk-None-",
        r"(?<![\w-])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}(?![\w-])",
    ),
    # OpenAI's keys hold `T3BlbkFJ` (base64 of `OpenAI`) whatever name comes after `sk-`.
    _f("openai_key", "T3BlbkFJ", r"(?<![\w-])sk-[A-Za-z0-9_-]{1,200}T3BlbkFJ[A-Za-z0-9_-]{8,}(?![\w-])", back=210),
    _f("openai_key", "sk-", r"(?<![\w-])sk-[A-Za-z0-9_-]{32,}(?![\w-])", check=not_words),
    _f(
        "stripe_key",
        "sk_live_ sk_test_ sk_prod_ rk_live_ rk_test_ rk_prod_",
        rf"{_B}[sr]k_(?:live|test|prod)_[A-Za-z0-9]{{10,247}}{_E}",
    ),
    _f("stripe_key", "whsec_", rf"{_B}whsec_[A-Za-z0-9]{{24,}}{_E}"),
    _f("google_api_key", "AIza", r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"),
    _f("google_oauth", "GOCSPX-", r"(?<![\w-])GOCSPX-[A-Za-z0-9_-]{28}(?![\w-])"),
    _f("google_oauth", "ya29.", r"(?<![\w-])ya29\.[A-Za-z0-9_-]{20,}(?![\w-])"),
    _f("npm_token", "npm_", rf"{_B}npm_[A-Za-z0-9]{{36}}{_E}"),
    _f("pypi_token", "pypi-AgE", r"(?<![\w-])pypi-AgE[A-Za-z0-9_-]{50,}(?![\w-])"),
    _f("sendgrid_key", "SG.", r"(?<![\w-])SG\.[A-Za-z0-9_=-]{16,32}\.[A-Za-z0-9_=-]{16,64}(?![\w-])"),
    _f("sendgrid_key", "SG.", r"(?<![\w-])SG\.[A-Za-z0-9_=.-]{66}(?![\w-])"),
    _f(
        "aws_bedrock_key",
        "ABSK bedrock-api-key-",
        rf"{_B}(?:ABSK[A-Za-z0-9+/]{{109,269}}={{0,2}}"
        rf"|bedrock-api-key-[A-Za-z0-9+/]{{20,}}={{0,2}})",
    ),
    _f("clickhouse_key", "4b1d", rf"{_B}4b1d[A-Za-z0-9]{{38}}{_E}"),
    _f("defined_networking_key", "dnkey-", rf"{_B}dnkey-[a-z0-9=_-]{{26}}-[a-z0-9=_-]{{52}}{_E}"),
    _f("grafana_token", "eyJrIjoi", rf"{_B}eyJrIjoi[A-Za-z0-9]{{70,400}}={{0,3}}(?![\w-])"),
    _f("mailgun_key", "pubkey-", rf"{_BD}pubkey-[a-f0-9]{{32}}{_ED}"),
    _f(
        "yandex_key",
        "AQVN YC t1.",
        rf"{_B}(?:AQVN[A-Za-z0-9_-]{{35,38}}|YC[A-Za-z0-9_-]{{38}}"
        rf"|t1\.[A-Z0-9a-z_-]+={{0,2}}\.[A-Z0-9a-z_-]{{86}}={{0,2}}){_E}",
    ),
    _f("gocardless_token", "live_", rf"{_B}live_[A-Za-z0-9_=-]{{40}}{_E}"),
    _f("lob_key", "live_pub_ test_pub_", rf"{_B}(?:live|test)_pub_[a-f0-9]{{31}}{_E}"),
    _f("lob_key", "live_ test_", rf"{_B}(?:live|test)_[a-f0-9]{{35}}{_E}"),
    _f("facebook_token", "EAAC EAAM EAAB EAAG", rf"{_B}EAA[BCGM][A-Za-z0-9]{{60,}}{_E}"),
    _f("langsmith_key", "lsv2_pt_ lsv2_sk_", rf"{_B}lsv2_(?:pt|sk)_[a-f0-9]{{32}}_[a-f0-9]{{10}}{_E}"),
    _f("spectralops_token", "spu-", rf"{_B}spu-[a-f0-9]{{32}}{_E}"),
    _f(
        "launchdarkly_key",
        "sdk- api-",
        rf"{_B}(?:sdk|api)-[a-z0-9]{{8}}-[a-z0-9]{{4}}-[a-z0-9]{{4}}-[a-z0-9]{{4}}"
        rf"-[a-z0-9]{{12}}{_E}",
    ),
    _f("curl_password", "--user -u", r"(?:--user|-u)[ \t=]+[\"']?[^:\s\"']+:([^\s\"']{3,})", group=1),
    _f("twilio_key", "SK", rf"{_BD}SK[0-9a-fA-F]{{32}}{_ED}"),
    _f("mailchimp_key", "-us", r"(?<![0-9A-Za-z])[0-9a-f]{32}-us\d{1,2}(?![0-9A-Za-z])", back=32),
    _f("mailgun_key", "key-", rf"{_BD}key-[0-9a-f]{{32}}{_ED}"),
    _f("huggingface_token", "hf_", rf"{_B}hf_[A-Za-z]{{34}}{_E}", check=_letters_mixed),
    _f("huggingface_token", "api_org_", rf"{_B}api_org_[A-Za-z]{{34}}{_E}", check=_letters_mixed),
    _f("digitalocean_token", "dop_v1_ doo_v1_ dor_v1_", rf"{_B}do[opr]_v1_[a-f0-9]{{64}}{_E}"),
    _f("shopify_token", "shpat_ shpca_ shppa_ shpss_", rf"{_B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}{_E}"),
    _f("rubygems_key", "rubygems_", rf"{_B}rubygems_[a-f0-9]{{48}}{_E}"),
    _f("vault_token", "hvs. hvb. hvr.", r"(?<![\w.-])hv[sbr]\.[\w-]{24,}(?![\w-])"),
    _f("docker_token", "dckr_pat_ dckr_oat_", rf"{_B}dckr_(?:pat|oat)_[\w-]{{27,}}{_E}"),
    _f(
        "doppler_token",
        "dp.pt. dp.st. dp.sa. dp.ct. dp.scim. dp.audit.",
        r"(?<![\w.-])dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,}(?![\w-])",
    ),
    _f(
        "planetscale_token",
        "pscale_tkn_ pscale_pw_ pscale_oauth_",
        rf"{_B}pscale_(?:tkn|pw|oauth)_[\w=.-]{{32,64}}{_E}",
    ),
    _f("linear_key", "lin_api_ lin_oauth_", rf"{_B}lin_(?:api|oauth)_[A-Za-z0-9]{{40}}{_E}"),
    _f("postman_key", "PMAK-", rf"{_B}PMAK-[a-f0-9]{{24}}-[a-f0-9]{{34}}{_E}"),
    _f("atlassian_token", "ATATT3 ATCTT3", rf"{_B}AT[AC]TT3[A-Za-z0-9_=-]{{60,}}{_E}"),
    _f("grafana_token", "glc_", rf"{_B}glc_[A-Za-z0-9+/]{{32,400}}={{0,2}}(?![\w-])"),
    _f("grafana_token", "glsa_", rf"{_B}glsa_[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}}{_E}"),
    _f("sentry_token", "sntrys_ sntryu_", rf"{_B}sntry[su]_[A-Za-z0-9+/=_]{{32,}}(?![\w-])"),
    _f("dynatrace_token", "dt0c01.", rf"(?<![\w.-])dt0c01\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{64}}{_E}"),
    _f("brevo_key", "xkeysib- xsmtpsib-", rf"{_B}x(?:keysib|smtpsib)-[a-f0-9]{{64}}-[A-Za-z0-9]{{16}}{_E}"),
    _f("age_key", "AGE-SECRET-KEY-1", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _f("onepassword_token", "ops_eyJ", rf"{_B}ops_eyJ[A-Za-z0-9+/]{{200,}}={{0,3}}"),
    _f(
        "onepassword_key",
        "A3-",
        rf"{_B}A3-[A-Z0-9]{{6}}-(?:[A-Z0-9]{{11}}|[A-Z0-9]{{6}}-[A-Z0-9]{{5}})"
        rf"-[A-Z0-9]{{5}}-[A-Z0-9]{{5}}-[A-Z0-9]{{5}}{_E}",
    ),
    _f("newrelic_key", "NRAK- NRJS- NRII- NRAA-", rf"{_B}NR(?:AK|JS|II|AA)-[A-Za-z0-9-]{{19,32}}{_E}"),
    _f("databricks_token", "dapi", rf"{_B}dapi[a-f0-9]{{32}}(?:-\d)?{_E}"),
    _f("adafruit_key", "aio_", rf"{_B}aio_[A-Za-z0-9]{{28}}{_E}"),
    _f("alibaba_key", "LTAI", rf"{_B}LTAI[A-Za-z0-9]{{20}}{_E}"),
    _f("contentful_token", "CFPAT-", rf"{_B}CFPAT-[A-Za-z0-9_-]{{43}}{_E}"),
    _f(
        "flyio_token",
        "fo1_ fm1r_ fm1a_ fm2_",
        rf"{_B}(?:fo1_[\w-]{{43}}|fm1[ar]_[A-Za-z0-9+/]{{100,}}={{0,3}}"
        rf"|fm2_[A-Za-z0-9+/]{{100,}}={{0,3}})",
    ),
    _f("heroku_key", "HRKU-", rf"{_B}HRKU-(?:AA)?[0-9A-Za-z_-]{{30,60}}{_E}"),
    _f("jfrog_token", "AKCp cmVmdGtu", rf"{_B}(?:AKCp[A-Za-z0-9]{{69}}|cmVmdGtu[A-Za-z0-9]{{56}}){_E}"),
    _f("mapbox_token", "sk.eyJ", r"(?<![\w.-])sk\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16,}"),
    _f("notion_token", "ntn_", rf"{_B}ntn_\d{{11}}[A-Za-z0-9]{{32,40}}{_E}"),
    _f("nuget_key", "oy2", rf"{_B}oy2[a-z0-9]{{43}}{_E}"),
    _f("perplexity_key", "pplx-", rf"{_B}pplx-[A-Za-z0-9]{{48}}{_E}"),
    _f("groq_key", "gsk_", rf"{_B}gsk_[A-Za-z0-9]{{52}}{_E}"),
    _f("xai_key", "xai-", rf"{_B}xai-[A-Za-z0-9]{{80}}{_E}"),
    _f("prefect_key", "pnu_", rf"{_B}pnu_[A-Za-z0-9]{{36}}{_E}"),
    _f("pulumi_token", "pul-", rf"{_B}pul-[a-f0-9]{{40}}{_E}"),
    _f("readme_key", "rdme_", rf"{_B}rdme_[a-z0-9]{{70}}{_E}"),
    _f("sourcegraph_token", "sgp_", rf"{_B}sgp_(?:[a-fA-F0-9]{{16}}_|local_)?[a-fA-F0-9]{{40}}{_E}"),
    _f("square_token", "sq0atp- sq0csp- EAAA", rf"{_B}(?:sq0(?:atp|csp)-[\w-]{{22,43}}|EAAA[\w+=-]{{60}}){_E}"),
    _f("typeform_token", "tfp_", rf"{_B}tfp_[a-z0-9_.=-]{{59}}{_E}", ignore_case=True),
    _f("easypost_key", "EZAK EZTK", rf"{_B}EZ[AT]K[A-Za-z0-9]{{54}}{_E}"),
    _f("duffel_token", "duffel_test_ duffel_live_", rf"{_B}duffel_(?:test|live)_[\w=-]{{43}}{_E}"),
    _f("shippo_token", "shippo_live_ shippo_test_", rf"{_B}shippo_(?:live|test)_[a-fA-F0-9]{{40}}{_E}"),
    _f("frameio_token", "fio-u-", rf"{_B}fio-u-[\w=-]{{64}}{_E}"),
    _f("openshift_token", "sha256~", rf"{_B}sha256~[\w-]{{43}}{_E}"),
    _f("infracost_key", "ico-", rf"{_B}ico-[A-Za-z0-9]{{32}}{_E}"),
    _f(
        "plaid_token",
        "access-sandbox- access-development- access-production-",
        rf"{_B}access-(?:sandbox|development|production)-[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}"
        rf"-[0-9a-f]{{4}}-[0-9a-f]{{12}}{_E}",
    ),
    _f("scalingo_token", "tk-us-", rf"{_B}tk-us-[\w-]{{48}}{_E}"),
    _f("settlemint_token", "sm_pat_ sm_aat_ sm_sat_", rf"{_B}sm_(?:pat|aat|sat)_[A-Za-z0-9]{{16}}{_E}"),
    _f("clojars_token", "CLOJARS_", rf"{_B}CLOJARS_[a-z0-9]{{60}}{_E}", ignore_case=True),
    _f("cloudflare_key", "v1.0-", rf"(?<![\w.-])v1\.0-[a-f0-9]{{24}}-[a-f0-9]{{146}}{_E}"),
    _f(
        "flutterwave_key",
        "FLWSECK- FLWSECK_TEST- FLWPUBK- FLWPUBK_TEST-",
        rf"{_B}FLW(?:SEC|PUB)K(?:_TEST)?-(?:[a-hA-H0-9]{{32}}-X|[a-hA-H0-9]{{12}}{_E})",
    ),
    _f(
        "harness_token",
        "pat. sat.",
        rf"(?<![\w.-])[ps]at\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{20}}{_E}",
    ),
    _f("intra42_secret", "s-s4t2ud- s-s4t2af-", rf"{_B}s-s4t2(?:ud|af)-[a-f0-9]{{64}}{_E}"),
    _f("maxmind_key", "_mmk", rf"{_B}[A-Za-z0-9]{{6}}_[A-Za-z0-9]{{29}}_mmk{_E}", back=36),
    _f("azure_ad_secret", "Q~", r"(?<![\w~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])", back=4),
    _f("telegram_token", ":AA", r"(?<![\w:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])", back=10),
    _f("octopus_key", "API-", rf"{_B}API-[A-Z0-9]{{26,32}}{_E}"),
    _f(
        "authress_key",
        "sc_ ext_ scauth_ authress_",
        rf"{_B}(?:sc|ext|scauth|authress)_[a-z0-9]{{5,30}}\.[a-z0-9]{{4,6}}\.acc[_-][a-z0-9-]{{10,32}}"
        rf"\.[A-Za-z0-9+/_=-]{{30,120}}",
    ),
    _f("jwt", "eyJ", r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]{8,})?(?![\w-])"),
    _f(
        "azure_storage_key",
        "accountkey= sharedaccesskey=",
        r"(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})",
        group=1,
        ignore_case=True,
    ),
    _f("azure_sas", "sig=", r"(?<=[?&;])sig=([A-Za-z0-9%+/=]{30,})", group=1),
    _f(
        "authorization",
        "authorization",
        r"(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token|digest|negotiate|apikey"
        r"|sso-key)[ \t]+([\w.~+/:-]{6,}=*)",
        group=1,
        ignore_case=True,
    ),
    _f(
        "authorization",
        "authorization",  # a header with no scheme: the value alone
        r"(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?([\w.~+/-]{16,}=*)(?![\w(-])",
        group=1,
        ignore_case=True,
        check=lambda v: re.fullmatch(r"[A-Z0-9_-]+", v) is None and _CODE_PATH.fullmatch(v) is None,
    ),  # not `AWS4-HMAC-SHA256`, nor `request.headers.get(…)`
    _f(
        "authorization",
        "bearer",  # `Bearer <token>` outside a header: only a random-looking token
        r"(?<![\w-])bearer[ \t]+([\w.~+/-]{16,}=*)(?![\w-])",
        group=1,
        check=looks_random,
        ignore_case=True,
    ),
    _f("url_password", "://", r"://[^/\s:@\"'<>]*:([^/\s@\"'<>]{3,})@", group=1),
)
