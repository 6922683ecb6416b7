"""The web UI's own words, per language: its pages, buttons and forms (typed, as
``labels.Labels`` is for the words of the digest, which the web UI's pages show too)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from paperbrief.models import Signal


@dataclass(frozen=True)
class WebLabels:
    """The web UI's words of one language."""

    archive: str
    ranking: str
    search: str
    profile: str
    up: str
    down: str
    save: str
    hide: str
    note: str
    no_digests: str
    picks: str
    raw_page: str
    listing_day: str
    writer: str
    delivered: str
    rank: str
    score: str
    paper: str
    picked: str
    not_picked_hint: str
    show_all: str
    no_ranking: str
    search_placeholder: str
    papers_found: str
    digests_found: str
    nothing_found: str
    authors: str
    categories: str
    abstract: str
    briefs: str
    outline: str
    no_outline: str
    tables: str
    figures: str
    feedback_history: str
    validate: str
    save_profile: str
    profile_valid: str
    profile_saved: str
    profile_problems: str
    line_no: str
    not_found: str
    research_lines: str
    days: str
    why: str  # why a paper ranks where it does
    read_only: str  # profile keys edited in the file only
    read_only_changed: str  # {key}
    start: str  # rate to start: the page's name
    start_intro: str  # what the ratings are for
    start_progress: str  # {rated} of {total} rated
    start_done: str  # every paper rated
    start_again: str  # ask about other papers
    start_nothing: str  # no paper left to ask about
    ceiling_raised: str  # {key}, {limit}
    login_title: str
    login_needed: str
    login_wrong: str
    login_throttled: str
    login_label: str
    login_open: str
    login_from_file: str  # {path}
    login_from_env: str  # {variable}
    login_insecure: str
    common_settings: str
    raw_toml: str
    field_unreadable: str
    locked_here: str
    at_most: str  # {limit}
    setting_names: Mapping[str, str]  # profile key (line.<key>: a line's) -> its form name
    research_line_n: str  # the legend of a research line's fields ({n}, {name})
    readers: str = "Readers"  # the owner's view of a lab (web.readers)
    spend: str = "LLM spend"

    def signal(self, signal: Signal | str) -> str:
        """The button name of a feedback signal (the signal itself for pipeline signals)."""
        value = Signal(signal)
        return {
            Signal.UP: self.up,
            Signal.DOWN: self.down,
            Signal.SAVE: self.save,
            Signal.HIDE: self.hide,
        }.get(value, value.value)


_ZH = WebLabels(
    archive="归档",
    ranking="今日排名",
    search="搜索",
    profile="研究档案",
    up="有用",
    down="没用",
    save="收藏",
    hide="不感兴趣",
    note="备注（可选）",
    no_digests="还没有日报。运行 `paperbrief run` 生成第一份。",
    picks="入选论文",
    raw_page="单独打开页面",
    listing_day="arXiv 列表日",
    writer="撰写",
    delivered="投递",
    rank="名次",
    score="相关度",
    paper="论文",
    picked="已入选",
    not_picked_hint="当天全部候选论文的排序：已入选的标出，其余是没被选中的。",
    show_all="显示全部",
    no_ranking="还没有存储的排名。",
    search_placeholder="标题、摘要或日报中的词",
    papers_found="论文",
    digests_found="日报",
    nothing_found="没有找到。",
    authors="作者",
    categories="分类",
    abstract="摘要",
    briefs="日报中的解读",
    outline="全文结构",
    no_outline="还没有抓取全文。",
    tables="表格",
    figures="图",
    feedback_history="我的反馈",
    validate="校验",
    save_profile="保存",
    profile_valid="档案有效。",
    profile_saved="已保存。",
    profile_problems="档案有问题，未保存：",
    line_no="第 {n} 行",
    not_found="没有找到：",
    research_lines="研究方向",
    days="其他日期",
    why="理由",
    read_only="以下设置只能在文件中修改（路径、服务地址、密钥变量名、收件人与链接、发布方式、模型与价格），"
    "此处只读；预算与重试次数此处只能调低：",
    read_only_changed="{key} 只能在档案文件中修改，网页上不能更改。",
    start="评分起步",
    start_intro="给下面这些论文打分（👍 想看这类 / 👎 不想看）：它们分布在各个研究方向，"
    "又是排序最拿不准的，几条评分就能教会排序你的口味。下一次排序马上用上。",
    start_progress="已评 {rated} / {total} 篇",
    start_done="都评完了。打开今日排名看看变化。",
    start_again="换一批",
    start_nothing="最近的论文都评过了。",
    ceiling_raised="{key} 在网页上只能调低（不超过 {limit}，0 表示不限，也不允许）；"
    "调高请改档案文件。",
    login_title="请输入访问令牌",
    login_needed="这是你的 paperbrief：日报、排名、反馈和研究档案。打开它需要访问令牌。",
    login_wrong="令牌不对，请再试一次。",
    login_throttled="错误次数太多，请稍等片刻再试。",
    login_label="访问令牌",
    login_open="打开",
    login_from_file="令牌保存在运行 paperbrief 的机器上的 {path}（仅本人可读）。"
    "在那台机器上运行 `paperbrief token show` 可以看到它和登录链接；"
    "`paperbrief token rotate` 更换令牌，并让所有已登录的浏览器退出。",
    login_from_env="令牌来自启动 paperbrief serve 时的环境变量 {variable}。",
    login_insecure="这个地址不是 HTTPS：浏览器不会保存登录状态。"
    "请把网页界面放在 HTTPS 反向代理之后（见 README）。",
    common_settings="常用设置",
    raw_toml="完整档案（TOML）",
    field_unreadable="这个值的格式不对，未修改",
    locked_here="只读：请在档案文件中修改",
    at_most="此处最多 {limit}",
    setting_names=MappingProxyType(
        {
            "name": "读者",
            "language": "日报语言",
            "timezone": "时区",
            "categories": "arXiv 分类（逗号分隔）",
            "secondary_categories": "次要分类（逗号分隔）",
            "picks_per_day": "每天精读篇数",
            "min_stars": "最低星级",
            "output.title": "标题（{date} 为日期）",
            "delivery.email.subject": "邮件主题（{title}、{date}）",
            "llm.daily_cost_budget": "每日费用上限",
            "line.name": "名称",
            "line.description": "描述（英文两三句：研究什么、为什么；语义排序用它比较论文）",
            "line.keywords": "英文关键词（逗号分隔）",
            "line.keywords_zh": "中文关键词（逗号分隔）",
            "line.weight": "权重（0–5，1 为常规）",
        }
    ),
    research_line_n="研究方向 {n}：{name}",
    readers="读者",
    spend="LLM 花费",
)

_EN = WebLabels(
    archive="Archive",
    ranking="Ranking",
    search="Search",
    profile="Profile",
    up="Useful",
    down="Not useful",
    save="Save",
    hide="Not interested",
    note="Note (optional)",
    no_digests="No digests yet. Run `paperbrief run` to make the first one.",
    picks="Picks",
    raw_page="Open the page alone",
    listing_day="arXiv listing",
    writer="Writer",
    delivered="Delivered",
    rank="#",
    score="Relevance",
    paper="Paper",
    picked="picked",
    not_picked_hint="The day's whole ranking: picks are marked, the rest were not chosen.",
    show_all="Show all",
    no_ranking="No ranking stored yet.",
    search_placeholder="Words in titles, abstracts or digests",
    papers_found="Papers",
    digests_found="Digests",
    nothing_found="Nothing found.",
    authors="Authors",
    categories="Categories",
    abstract="Abstract",
    briefs="In the digests",
    outline="Full-text outline",
    no_outline="Full text not fetched yet.",
    tables="Tables",
    figures="Figures",
    feedback_history="My feedback",
    validate="Validate",
    save_profile="Save",
    profile_valid="The profile is valid.",
    profile_saved="Saved.",
    profile_problems="The profile has problems and was not saved:",
    line_no="line {n}",
    not_found="Not found: ",
    research_lines="Research lines",
    days="Other days",
    why="Why",
    read_only="These settings are edited in the file only (paths, endpoints, names of secret"
    " variables, recipients and links, what is published, models and prices); shown"
    " read-only. Budgets and retries can only be lowered here:",
    read_only_changed="{key} can only be changed in the profile file, not on this page.",
    start="Rate to start",
    start_intro="Rate these papers (👍 more like this / 👎 less): they spread over your research"
    " lines and sit where the ranking is least sure, so a few ratings teach it your taste."
    " The next ranking uses them at once.",
    start_progress="{rated} of {total} rated",
    start_done="All rated. Open the ranking to see what changed.",
    start_again="Other papers",
    start_nothing="Every recent paper has a rating.",
    ceiling_raised="{key} can only be lowered on this page (at most {limit}; 0, no limit, is"
    " not allowed either); raise it in the profile file.",
    login_title="Access token, please",
    login_needed="This is your paperbrief: digests, rankings, feedback and your research"
    " profile. Opening it takes its access token.",
    login_wrong="That token is not right; try again.",
    login_throttled="Too many wrong tries; wait a moment and try again.",
    login_label="Access token",
    login_open="Open",
    login_from_file="The token is kept in {path} on the machine that runs paperbrief (readable"
    " by its owner only). There, `paperbrief token show` prints it and the login link;"
    " `paperbrief token rotate` makes a new one and logs every browser out.",
    login_from_env="The token is the environment variable {variable} that paperbrief serve"
    " was started with.",
    login_insecure="This address is not HTTPS: the browser will not keep the login. Put the"
    " web UI behind an HTTPS reverse proxy (see the README).",
    common_settings="Common settings",
    raw_toml="The whole profile (TOML)",
    field_unreadable="not a value of this kind; left unchanged",
    locked_here="read-only: edit it in the profile file",
    at_most="at most {limit} here",
    setting_names=MappingProxyType(
        {
            "name": "Reader",
            "language": "Digest language",
            "timezone": "Time zone",
            "categories": "arXiv categories (comma-separated)",
            "secondary_categories": "Secondary categories (comma-separated)",
            "picks_per_day": "Deep reads per day",
            "min_stars": "Lowest star rating",
            "output.title": "Title ({date} is the date)",
            "delivery.email.subject": "E-mail subject ({title}, {date})",
            "llm.daily_cost_budget": "Daily cost budget",
            "line.name": "Name",
            "line.description": "Description (two or three sentences: what and why; the"
            " semantic ranker compares papers with it)",
            "line.keywords": "Key phrases (comma-separated)",
            "line.keywords_zh": "Chinese key phrases (comma-separated)",
            "line.weight": "Weight (0–5, 1 = normal)",
        }
    ),
    research_line_n="Research line {n}: {name}",
)

WEB_LABELS: Mapping[str, WebLabels] = MappingProxyType({"zh": _ZH, "en": _EN})  # LANGUAGES


def web_labels_for(language: str) -> WebLabels:
    """The web UI's words in ``language`` (``zh`` or ``en``)."""
    try:
        return WEB_LABELS[language]
    except KeyError:
        raise ValueError(
            f"no web labels for language {language!r}; use one of {sorted(WEB_LABELS)}"
        ) from None
