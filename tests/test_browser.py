"""The manual page in a real browser: headless Chromium, driven by Selenium.

Loads the page from file://, steps the seed animation to its end with the keyboard (a focused
button and Enter, then Home/End), checks that the vd[0] shown equals the model's, plays it,
and saves screenshots in the test's tmp dir (and in $VREDMAX_ARTIFACTS when set, for CI).
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

CHROMIUM = ("chromium", "chromium-browser")
DRIVER = "chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-dev-shm-usage", "--window-size=1280,900")


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


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    doc = collect([Config(128, 64, 64, "m1")], claims=[CLAIMS_BY_ID["vredmax.wrong.masked_count_as_zero"]])
    directory = tmp_path_factory.mktemp("manual")
    for name, text in manual.render(doc).items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory / manual.HTML


@pytest.fixture(scope="module")
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
    assert _step(figure) == 0 and not shown.is_displayed() and old.is_displayed()
    assert figure.find_element(By.CSS_SELECTOR, ".count").text.lower() == f"step 1 of {count}"

    following = figure.find_element(By.CSS_SELECTOR, 'button[data-act="next"]')
    for _ in range(count + 3):   # Enter on the focused button, past the end: it stays at the end
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


def test_masked_lane_is_highlighted_and_skipped(chromium, page):
    """At lane 5's step its column is the current one, and the running max stays 0x0011."""
    from selenium.webdriver.common.by import By
    chromium.get(page.as_uri())
    figure = chromium.find_element(By.ID, "anim-seed")
    titles = [s.title for s in animation.steps(content.run_case(content.SEED_CASE))]
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
    play = figure.find_element(By.CSS_SELECTOR, 'button[data-act="play"]')
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    WebDriverWait(chromium, 10).until(lambda _: _step(figure) >= 2)
    play.click()
    assert play.get_attribute("aria-pressed") == "false"


def test_whole_page_screenshot_and_no_script_errors(chromium, page, tmp_path):
    chromium.get(page.as_uri())
    figures = chromium.execute_script("return document.querySelectorAll('figure.anim[data-step]').length")
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
    figure.find_element(By.CSS_SELECTOR, 'button[data-act="last"]').send_keys(Keys.ENTER)
    shown = figure.find_element(By.CSS_SELECTOR, ".anim-vd0")
    assert shown.text.split()[0] == animation.hex_text(run.written, run.cfg.sew) == "0x00000064"
    _save(chromium, tmp_path, "explain-case.png")
