"""An LLM route that answers every request of a whole `paperbrief run` on loopback: the
judge's screens and readings, deep reads and the day synthesis, each with a valid answer
(see OpenAIServer)."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.openai_server import Reply


def kind_of(body: dict[str, Any]) -> str:
    """screen | judge | addresses | day | writer: what a request asks for."""
    users = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"]
    user = users[0] if users else ""
    if user.startswith("Screen these"):
        return "screen"
    if user.startswith("Rate th"):
        return "judge"
    if user.startswith("<paper>\nTitle: "):
        return "addresses"  # which sentences of a risen paper speak to the model
    if "<picks>" in user:
        return "day"
    return "writer"


def screen_answer(body: dict[str, Any], relevance: int = 50) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    keys = re.findall(r'<paper key="(S\d+)">', user)
    return json.dumps({"papers": [{"key": key, "relevance": relevance} for key in keys]})


def judge_answer(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    keys = re.findall(r'<paper key="(P\d+)">', user)
    verdicts = [
        {"key": key, "relevance": 62, "stars": 3, "line": "", "reason": "judged"} for key in keys
    ]
    return json.dumps({"papers": verdicts})


def read_answer() -> str:
    return json.dumps(
        {
            "reason": "由大语言模型写的深读。",
            "tldr": "LLM 深读：作者提出一个方法。",
            "problem": "现有方法成本高。",
            "insight": "把定位与修复分开。",
            "steps": ["收集数据", "训练模型"],
            "difference": "不再端到端运行 agent。",
            "results": [],
            "result_notes": [],
            "limitations": ["仅在摘要层面可见。"],
            "open_questions": [],
            "technique": "复用其定位思路。",
            "experiment": "做一次对照实验。",
            "trend": "分工式 agent 会更常见。",
            "direction": "程序修复",
            "contribution": "分工式修复",
        },
        ensure_ascii=False,
    )


def day_answer(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    names = [f"P{n}" for n in range(1, user.count("<pick ") + 1)]
    return json.dumps(
        {
            "summary": "LLM 写的今日总结。",
            "theme_title": "分工",
            "theme": "它们都把 LLM 放在窄角色里。",
            "short_names": names,
            "comparison": [{"dimension": "核心方法", "cells": ["x"] * len(names)}],
            "closing": "先读第一篇。",
        },
        ensure_ascii=False,
    )


def whole_run(body: dict[str, Any]) -> Reply:
    """The route: a valid answer for whichever part of the run is asking."""
    kind = kind_of(body)
    if kind == "screen":
        return Reply(content=screen_answer(body))
    if kind == "judge":
        return Reply(content=judge_answer(body))
    if kind == "addresses":
        return Reply(content=json.dumps({"sentences": []}))
    if kind == "day":
        return Reply(content=day_answer(body))
    return Reply(content=read_answer())
