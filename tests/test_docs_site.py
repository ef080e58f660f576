"""The documentation site opened in a real browser: headless Chromium, driven
by selenium, on the built site served from localhost. The home page, the
search (Material's index and its results) and an API page must render with
their content; a screenshot of the home page is kept in site-artifacts/.

The site is the one S2SAD_DOCS_SITE names (CI builds it first, with the
tutorials), or one this test builds with `python -m s2sad docs --build`
(mkdocs build --strict; the tutorials not run: they do not change what is
checked here). The test skips, saying
why, where mkdocs, selenium, Chromium or its driver cannot be found
(`pip install -e ".[docs]"`; `apt-get install chromium chromium-driver`)."""
import functools
import http.server
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "site-artifacts"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser():
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    given = os.environ.get("S2SAD_DOCS_SITE")
    if given:
        path = pathlib.Path(given)
        assert (path / "index.html").is_file(), f"S2SAD_DOCS_SITE={given} holds no built site"
        return path
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip('mkdocs is not installed: pip install -e ".[docs]"')
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, S2SAD_DOCS_TUTORIALS="skip", NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "s2sad", "docs", "--build", "--site-dir",
                           str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"the docs build failed:\n{done.stderr[-4000:]}"
    assert f"built {out}" in done.stdout
    return out


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    if importlib.util.find_spec("selenium") is None:
        pytest.skip('selenium is not installed: pip install -e ".[docs]"')
    binary, driver_path = _browser(), shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("no Chromium and chromedriver on PATH (Debian: apt-get install chromium "
                    "chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    profile = tempfile.mkdtemp(prefix="s2sad-chromium-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--window-size=1280,900", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, condition, what, timeout=30):
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(driver, timeout).until(lambda d: condition(d))
    except Exception as exc:  # noqa: BLE001 - TimeoutException: say what was awaited
        raise AssertionError(f"timed out waiting for {what} on {driver.current_url}") from exc


def test_home_page_renders_and_is_kept_as_a_screenshot(served, browser):
    from selenium.webdriver.common.by import By

    browser.get(served + "/index.html")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "article h1"), "the page's title")
    assert browser.find_element(By.CSS_SELECTOR, "article h1").text.strip() == "s2sad"
    article = browser.find_element(By.CSS_SELECTOR, "article").text
    assert "source-to-source automatic differentiation" in article
    nav = browser.find_element(By.CSS_SELECTOR, "nav.md-nav--primary").text
    for entry in ("Getting started", "What s2sad accepts", "Tutorials", "API reference"):
        assert entry in nav, f"the navigation lacks {entry!r}"
    # (the stylesheet applied: Material's header is laid out, not bare HTML)
    header = browser.find_element(By.CSS_SELECTOR, "header.md-header")
    assert header.size["height"] > 20 and header.value_of_css_property("position") != "static"
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "docs-home.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000


def test_search_finds_a_numpy_function_in_the_support_table(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(served + "/search/search_index.json")
    assert "np.einsum" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(served + "/index.html")
    box = _wait(browser, lambda d: next((e for e in d.find_elements(
        By.CSS_SELECTOR, "input.md-search__input") if e.is_displayed()), None), "the search box")
    box.click()
    box.send_keys("einsum")
    box.send_keys(Keys.SPACE)
    typed = [time.monotonic()]

    def found(d):
        shown = [e for e in d.find_elements(By.CSS_SELECTOR, ".md-search-result__item a")
                 if e.is_displayed()]
        if not shown and time.monotonic() - typed[0] > 5.0:
            # (on a loaded machine the search worker may still be building
            # its index when the query is typed: type it again)
            box.send_keys(Keys.BACKSPACE)
            box.send_keys(Keys.SPACE)
            typed[0] = time.monotonic()
        return shown
    results = _wait(browser, found, "search results", timeout=120)
    targets = [e.get_attribute("href") for e in results]
    assert any("accepts.html" in t for t in targets), targets
    browser.get(next(t for t in targets if "accepts.html" in t))
    _wait(browser, lambda d: "np.einsum" in d.find_element(By.CSS_SELECTOR, "article").text,
          "the support table's np.einsum row")
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "article table tr")
               if r.text.startswith("np.einsum"))
    assert " compiled " in f" {row.text} ", row.text  # (np.einsum's loop nests)


def test_api_page_shows_the_docstrings(served, browser):
    from selenium.webdriver.common.by import By

    browser.get(served + "/api.html")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".doc-heading"), "the API headings")
    headings = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".doc-heading")]
    for name in ("grad", "value_and_grad", "jacobian", "check_grads", "UnsupportedSyntaxError"):
        assert any(h.split("(")[0].strip().endswith(name) for h in headings), (name, headings)
    text = browser.find_element(By.CSS_SELECTOR, "article").text
    assert "Gradient of fn with respect to wrt" in text.replace("`", "")
