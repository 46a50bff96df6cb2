"""The manual page in a real browser: headless Chromium, driven by Selenium.

Loads the page from file://: each animation opens in its reading view (every value, the steps
as text); "Step through it" starts it; the test steps the seed animation to its end with the
keyboard (a focused button and Enter, then Home/End), checks that the vd[0] shown equals the
model's, plays it, and saves screenshots at 1280 and 390 px (a phone) in the test's tmp dir
(and in $VREDMAX_ARTIFACTS when set, for CI), checking what they show.
Locally the test skips without chromium, chromedriver or selenium; in CI (CI=true) that is
a failure, as for the conformance tests.
"""

from __future__ import annotations

import os
import shutil

import pytest

from vredmax.presentation.documents import manual
from vredmax.proofs.claims.claims import CLAIMS_BY_ID
from vredmax.presentation.documents.manual import animation, content
from vredmax.presentation.documents.report import collect
from vredmax.spec.config import Config
from tests.conftest import in_ci

# Under pytest-xdist (--dist loadgroup) test_report, test_manual and test_browser run on one
# worker: each collects the same small document, proved once there.
pytestmark = pytest.mark.xdist_group("documents")

CHROMIUM = ("chromium", "chromium-browser")
DRIVER = "chromedriver"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def _require_browser() -> tuple[str, str]:
    browser = next((path for path in map(shutil.which, CHROMIUM) if path), None)
    driver = shutil.which(DRIVER)
    try:
        import selenium  # noqa: F401

        missing = []
    except ImportError:
        missing = ["selenium (pip install selenium)"]
    if browser is None:
        missing.append("chromium (apt-get install chromium)")
    if driver is None:
        missing.append("chromedriver (apt-get install chromium-driver)")
    if missing:
        message = f"needs {', '.join(missing)}"
        if in_ci():
            pytest.fail(f"CI=true, so a missing browser is a failure: {message}", pytrace=False)
        pytest.skip(message)
    return browser, driver


def _driver(browser: str, driver: str, javascript: bool = True):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(driver), options=options)


@pytest.fixture(scope="session")
def page(tmp_path_factory):
    doc = collect([Config(128, 64, 64, "m1")], claims=[CLAIMS_BY_ID["vredmax.wrong.masked_count_as_zero"]])
    directory = tmp_path_factory.mktemp("manual")
    for name, text in manual.render(doc).items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory / manual.HTML


@pytest.fixture(scope="session")
def chromium():
    browser, driver = _require_browser()
    session = _driver(browser, driver)
    yield session
    session.quit()


def _save(session, tmp_path, name: str) -> None:
    session.save_screenshot(str(tmp_path / name))
    artifacts = os.environ.get("VREDMAX_ARTIFACTS")
    if artifacts:
        os.makedirs(artifacts, exist_ok=True)
        shutil.copy(tmp_path / name, os.path.join(artifacts, name))
    assert (tmp_path / name).stat().st_size > 10_000


def _step(figure) -> int:
    return int(figure.get_attribute("data-step"))


def _show(session, element) -> None:
    session.execute_script("arguments[0].scrollIntoView({block: 'start'})", element)


def _animate(figure):
    """Leave the reading view: the figure's "Step through it" button."""
    from selenium.webdriver.common.by import By

    figure.find_element(By.CSS_SELECTOR, 'button[data-act="animate"]').click()
    assert figure.get_attribute("data-mode") == "animating"


def test_seed_animation_steps_to_the_model_result(chromium, page, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    run = content.run_case(content.SEED_CASE)
    count = len(animation.steps(run))
    chromium.get(page.as_uri())
    figure = chromium.find_element(By.ID, "anim-seed")
    _show(chromium, figure)
    shown = figure.find_element(By.CSS_SELECTOR, ".anim-vd0")
    old = figure.find_element(By.CSS_SELECTOR, ".vd0 .old")
    _animate(figure)
    assert _step(figure) == 0 and not shown.is_displayed() and old.is_displayed()
    assert figure.find_element(By.CSS_SELECTOR, ".count").text.lower() == f"step 1 of {count}"

    following = figure.find_element(By.CSS_SELECTOR, 'button[data-act="next"]')
    for _ in range(count + 3):  # Enter on the focused button, past the end: it stays at the end
        following.send_keys(Keys.ENTER)
    assert chromium.switch_to.active_element == following
    assert _step(figure) == count - 1 and following.get_attribute("aria-disabled") == "true"
    assert shown.is_displayed() and not old.is_displayed()
    expected = animation.hex_text(run.written, run.cfg.sew)
    assert shown.text.split()[0] == expected == "0x0011"
    assert figure.find_element(By.CSS_SELECTOR, ".stitle").text == "Retire"
    _show(chromium, figure)
    _save(chromium, tmp_path, "manual-seed-animation-end.png")

    following.send_keys(Keys.HOME)
    assert _step(figure) == 0 and not shown.is_displayed()
    following.send_keys(Keys.ARROW_RIGHT)
    following.send_keys(Keys.ARROW_RIGHT)
    assert _step(figure) == 2
    following.send_keys(Keys.END)
    assert _step(figure) == count - 1
    figure.find_element(By.CSS_SELECTOR, 'button[data-act="read"]').click()  # back to the reading view
    assert figure.get_attribute("data-mode") == "reading" and shown.is_displayed()
    assert not figure.find_element(By.CSS_SELECTOR, ".controls").is_displayed()


def test_masked_lane_is_highlighted_and_skipped(chromium, page):
    """At lane 5's step its column is the current one, and the running max stays 0x0011."""
    from selenium.webdriver.common.by import By

    chromium.get(page.as_uri())
    figure = chromium.find_element(By.ID, "anim-seed")
    titles = [s.title for s in animation.steps(content.run_case(content.SEED_CASE))]
    _animate(figure)
    following = figure.find_element(By.CSS_SELECTOR, 'button[data-act="next"]')
    for _ in range(titles.index("Lane 5")):
        following.click()
    current = figure.find_elements(By.CSS_SELECTOR, "table.lanes td.now")
    assert [cell.text.split("\n")[0] for cell in current] == ["5", "0x0020", "0", "no", "0x0011"]
    assert "masked off" in figure.find_element(By.CSS_SELECTOR, ".stext").text


def test_play_advances_by_itself(chromium, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chromium.get(page.as_uri())
    figure = chromium.find_element(By.ID, "anim-seed")
    _animate(figure)
    play = figure.find_element(By.CSS_SELECTOR, 'button[data-act="play"]')
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    WebDriverWait(chromium, 10).until(lambda _: _step(figure) >= 2)
    play.click()
    assert play.get_attribute("aria-pressed") == "false"


def test_whole_page_screenshot_and_no_script_errors(chromium, page, tmp_path):
    chromium.get(page.as_uri())
    figures = chromium.execute_script(
        "return document.querySelectorAll('figure.anim[data-mode=reading]').length"
    )
    assert figures == page.read_text(encoding="utf-8").count('<figure class="anim"')
    if hasattr(chromium, "get_log"):
        severe = [entry for entry in chromium.get_log("browser") if entry["level"] == "SEVERE"]
        assert severe == []
    _save(chromium, tmp_path, "manual-top.png")


def test_page_reads_without_javascript(page, tmp_path):
    """Scripts off: every value of the animation is there, the steps are listed, no controls."""
    from selenium.webdriver.common.by import By

    browser, driver = _require_browser()
    session = _driver(browser, driver, javascript=False)
    try:
        session.get(page.as_uri())
        figure = session.find_element(By.ID, "anim-seed")
        assert figure.find_element(By.CSS_SELECTOR, ".anim-vd0").text.split()[0] == "0x0011"
        assert not figure.find_element(By.CSS_SELECTOR, ".controls").is_displayed()
        steps = figure.find_elements(By.CSS_SELECTOR, "details.all li")
        assert len(steps) == len(animation.steps(content.run_case(content.SEED_CASE)))
        assert all(step.is_displayed() for step in steps)
        _show(session, figure)
        _save(session, tmp_path, "manual-no-javascript.png")
    finally:
        session.quit()


def test_explain_page_in_the_browser(chromium, tmp_path):
    """`vredmax explain --html` for another case: LMUL=2, the result in the second register."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    title, text, case = content.EXAMPLES[3]
    run = content.run_case(case)
    path = tmp_path / "case.html"
    path.write_text(manual.case_page(run, case), encoding="utf-8")
    chromium.get(path.as_uri())
    figure = chromium.find_element(By.ID, "anim-case")
    _animate(figure)
    figure.find_element(By.CSS_SELECTOR, 'button[data-act="last"]').send_keys(Keys.ENTER)
    shown = figure.find_element(By.CSS_SELECTOR, ".anim-vd0")
    assert shown.text.split()[0] == animation.hex_text(run.written, run.cfg.sew) == "0x00000064"
    _save(chromium, tmp_path, "explain-case.png")


# The reading view, the glyphs, the checks and the phone ------------------------------------------


def _reading_view_shows_everything(session, figure, steps: int) -> None:
    from selenium.webdriver.common.by import By

    assert figure.get_attribute("data-mode") == "reading"
    assert figure.find_element(By.CSS_SELECTOR, ".anim-vd0").text.split()[0] == "0x0011"  # the final state
    assert not figure.find_element(By.CSS_SELECTOR, ".vd0 .old").is_displayed()
    listed = figure.find_elements(By.CSS_SELECTOR, "details.all li")
    assert len(listed) == steps and all(item.is_displayed() for item in listed)  # every step as text
    assert (
        not figure.find_elements(By.CSS_SELECTOR, ".pending")
        and not figure.find_element(By.CSS_SELECTOR, ".controls").is_displayed()
    )
    start = figure.find_element(By.CSS_SELECTOR, 'button[data-act="animate"]')
    assert start.is_displayed() and start.text == f"Step through it: {steps} steps"
    assert session.execute_script("return getComputedStyle(arguments[0]).opacity", figure) == "1"


@pytest.mark.parametrize("width", [1280, 390])
def test_screenshots_open_in_the_reading_view(chromium, page, tmp_path, width):
    """At 1280 px and at 390 px (a phone): the page fits the width, the seed figure opens with
    its final state and its steps as text, and the encoding diagram's text is readable."""
    from selenium.webdriver.common.by import By

    chromium.set_window_size(width, 900)
    try:
        chromium.get(page.as_uri())
        inner = chromium.execute_script("return window.innerWidth")
        assert chromium.execute_script("return document.documentElement.scrollWidth") <= inner
        diagrams = [
            svg for svg in chromium.find_elements(By.CSS_SELECTOR, "svg.encsvg") if svg.is_displayed()
        ]
        assert len(diagrams) == 1 and ("narrow" in diagrams[0].get_attribute("class").split()) == (
            width < 640
        )
        _show(chromium, diagrams[0])
        sizes = [
            chromium.execute_script("return arguments[0].getBoundingClientRect().height", text)
            for text in diagrams[0].find_elements(By.CSS_SELECTOR, "text.fval, text.fname")
        ]
        assert min(sizes) >= 9, f"the encoding diagram's text is {min(sizes):.1f} px high at {width} px"
        assert (
            chromium.execute_script("return arguments[0].getBoundingClientRect().right", diagrams[0]) <= inner
        )
        _save(chromium, tmp_path, f"manual-encoding-{width}.png")
        figure = chromium.find_element(By.ID, "anim-seed")
        _reading_view_shows_everything(
            chromium, figure, len(animation.steps(content.run_case(content.SEED_CASE)))
        )
        _show(chromium, figure)
        _save(chromium, tmp_path, f"manual-seed-reading-{width}.png")
        _animate(figure)
        assert figure.find_element(By.CSS_SELECTOR, ".controls").is_displayed()
        _save(chromium, tmp_path, f"manual-seed-animating-{width}.png")
    finally:
        chromium.set_window_size(1280, 900)


def test_checks_strip_shows_only_the_checks_that_apply():
    """Unmasked: no v0 checks; LMUL <= 1: no alignment check; masked at LMUL=2: all of them."""
    from vredmax.presentation.documents.manual.animation import figure_html

    unmasked = content.run_case(content.EXAMPLES[0][2])  # vm=1, LMUL=1
    strip = figure_html(unmasked, "a", "x").split('<ul class="checks"')[1].split("</ul>")[0]
    assert "v0" not in strip and "vs2 aligned" not in strip and "vtype valid" in strip
    masked = content.run_case(
        {**content.EXAMPLES[3][2], "insn": "vredmax.vs v1, v12, v2, v0.t"}
    )  # vm=0, LMUL=2
    strip = figure_html(masked, "b", "y").split('<ul class="checks"')[1].split("</ul>")[0]
    assert all(label in strip for label in ("v0 not in vs2", "vs1 ≠ v0", "vs2 aligned"))
    assert "v0" not in animation.steps(unmasked)[2].text


def _fonts_with(char: str) -> set[str]:
    import subprocess

    out = subprocess.run(
        ["fc-list", f":charset={ord(char):x}", "family"], capture_output=True, text=True
    ).stdout
    return {family.strip() for line in out.splitlines() for family in line.split(",")}


def test_every_character_is_in_a_common_font(page):
    """Every non-ASCII character the page shows (its text and its script's) is in DejaVu Sans, the
    font most Linux systems fall back to: no missing-glyph boxes (the Pause sign was one)."""
    if shutil.which("fc-list") is None:
        _require_browser()
        pytest.skip("needs fc-list (fontconfig)")
    if not _fonts_with("A") & {"DejaVu Sans"}:
        if in_ci():
            pytest.fail(
                "CI=true: DejaVu Sans is not installed (apt-get install fonts-dejavu-core)", pytrace=False
            )
        pytest.skip("needs the DejaVu Sans font (apt-get install fonts-dejavu-core)")
    text = page.read_text(encoding="utf-8")
    missing = sorted({c for c in text if ord(c) > 127 and "DejaVu Sans" not in _fonts_with(c)})
    assert missing == [], f"not in DejaVu Sans: {[f'U+{ord(c):04X}' for c in missing]}"
