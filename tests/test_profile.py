"""The profile: template and example validate; every error names its key and the fix."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import ProfileError
from paperbrief.profile import load_profile, parse_profile, profile_template
from tests.support import EXAMPLE_PROFILE


def filled_template() -> str:
    """The template with its one placeholder (the name) replaced, as a new user would."""
    return profile_template().replace('name = "Your Name"', 'name = "Li Hua"')


def test_template_and_example_profile_validate():
    template = parse_profile(filled_template())
    assert template.language == "zh" and template.research_lines
    example = load_profile(EXAMPLE_PROFILE)
    assert len(example.research_lines) == 5
    assert {"cs.SE", "cs.CL", "cs.LG", "cs.AI"} <= set(example.categories)
    assert any(asset.name == "HomeCheck" for asset in example.assets)


def test_one_list_of_languages_feeds_the_check_the_cli_the_prompts_and_the_labels():
    from paperbrief.labels import LABELS
    from paperbrief.profile import LANGUAGES
    from paperbrief.prompts import LANGUAGE_NAMES, LANGUAGE_STYLE
    from paperbrief.web.labels import WEB_LABELS

    assert LANGUAGES == ("zh", "en")
    assert set(LANGUAGE_NAMES) == set(LANGUAGE_STYLE) == set(LABELS) == set(WEB_LABELS)
    assert set(LABELS) == set(LANGUAGES)
    profile = cli.get_command(click.Context(cli), "profile")
    init = profile.get_command(click.Context(profile), "init")  # type: ignore[union-attr]
    (choice,) = [p.type for p in init.params if p.name == "language"]
    assert tuple(choice.choices) == LANGUAGES
    with pytest.raises(ProfileError, match="language"):
        text = EXAMPLE_PROFILE.read_text(encoding="utf-8")
        parse_profile(text.replace('language = "zh"', 'language = "fr"'))


def test_settings_naming_a_path_an_endpoint_or_a_secret_are_protected_on_their_fields():
    """The web UI's editor keeps them read-only; a new such setting must say so itself."""
    from pydantic import BaseModel

    from paperbrief.profile import CHANNEL_KINDS, Profile, protected_settings

    def keys(model: type[BaseModel], prefix: str = "") -> list[str]:
        found = []
        for name, field in model.model_fields.items():
            annotation = field.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                found += keys(annotation, f"{prefix}{name}.")
            else:
                found.append(f"{prefix}{name}")
        return found

    risky = ("_env", "base_url", ".dir", ".folder", ".path", "filename", "ca_file", "smtp_host")
    protected = protected_settings()
    assert [key for key in keys(Profile) if key.endswith(risky) and key not in protected] == []
    assert "delivery.webhooks" in protected and protected["llm.base_url"] == ""
    by_kind = {kind.kind: kind.protected for kind in CHANNEL_KINDS}
    assert by_kind["email"][0] == "delivery.email.smtp_host" and by_kind["feed"] == (
        "delivery.feed.path",
    )


def test_unknown_key_is_named_with_the_fix():
    with pytest.raises(ProfileError) as caught:
        parse_profile(filled_template().replace("picks_per_day = 4", "picks_per_dya = 4"))
    assert "picks_per_dya" in caught.value.message
    assert "check its spelling" in caught.value.message
    (problem,) = caught.value.problems  # structured: the web UI shows it in place
    lines = profile_template().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("picks_per_day = 4"))
    assert (problem.key, problem.line) == ("picks_per_dya", line)


def test_bad_value_and_missing_key_are_named():
    text = profile_template().replace('language = "zh"', 'language = "fr"')
    text = text.replace('name = "Your Name"', "")
    with pytest.raises(ProfileError) as caught:
        parse_profile(text)
    assert "language" in caught.value.message and "'zh' or 'en'" in caught.value.message
    assert "name: add this key" in caught.value.message


def test_broken_toml_points_at_the_line():
    with pytest.raises(ProfileError) as caught:
        parse_profile('name = "x"\ncategories = [\n', origin="p.toml")
    assert "p.toml is not valid TOML" in caught.value.message
    (problem,) = caught.value.problems
    assert problem.key == "TOML" and problem.line == 2


def test_profile_init_then_check_via_cli(tmp_path: Path):
    runner = CliRunner()
    target = tmp_path / "profile.toml"
    result = runner.invoke(cli, ["profile", "init", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == profile_template()
    again = runner.invoke(cli, ["profile", "init", str(target)])
    assert again.exit_code != 0  # refuses to overwrite without --force
    untouched = runner.invoke(cli, ["profile", "check", "--profile", str(target)])
    assert untouched.exit_code == 2 and "put your own name" in untouched.output
    target.write_text(filled_template(), encoding="utf-8")
    checked = runner.invoke(cli, ["profile", "check", "--profile", str(target)])
    assert checked.exit_code == 0 and "OK" in checked.output


def test_profile_check_reports_error_and_hint(tmp_path: Path):
    target = tmp_path / "bad.toml"
    target.write_text(profile_template().replace("min_stars = 2", "min_stars = 9"), "utf-8")
    result = CliRunner().invoke(cli, ["profile", "check", "--profile", str(target)])
    assert result.exit_code == 2
    assert "min_stars" in result.output and "hint:" in result.output


def test_commented_llm_and_delivery_examples_in_the_template_validate():
    import re

    uncommented = "\n".join(
        re.sub(r"^# ", "", line) if re.match(r"^# (\[|[a-z_]+ = )", line) else line
        for line in filled_template().splitlines()
    )
    profile = parse_profile(uncommented)
    assert profile.llm.model == "deepseek-chat"
    assert profile.delivery.email.security == "ssl"
    assert profile.delivery.webhooks[0].kind == "feishu"


def test_the_profile_names_exactly_the_embedding_models_run_can_load():
    from paperbrief.profile import EMBEDDING_MODELS
    from paperbrief.rank.embed import MODELS

    assert set(EMBEDDING_MODELS) == set(MODELS)
