"""The page in a real browser: Debian's headless Chromium, driven by Selenium, against a real server on 127.0.0.1.

The first test takes a screenshot of the page (to $ARKG_SCREENSHOT when set); the README's picture,
made with the real default model, comes from bench/page_screenshot.py.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from support.serving import SAMPLE_QUESTION, curie_model, live_server

from arkg.graph import SQLiteGraph, Triple
from arkg.llm.scripted import ScriptedModel
from arkg.llm.testing import TestModel
from arkg.server import ServerConfig, create_app
from arkg.session import Session

pytestmark = pytest.mark.slow

TWO_HOPS = "Did a child of Marie Curie receive a Nobel Prize?"
SCRIPT = "<script>window.__xss = 1</script>"
IMAGE = '<img src=x onerror="window.__xss = 2">'


@pytest.fixture(scope="module")
def browser(chromium):
    chromium_path, driver_path = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium_path)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900", "--lang=en-US"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(str(driver_path)))
    yield driver
    driver.quit()


def wait(driver, script: str, seconds: float = 30):
    """Wait until the JavaScript expression is truthy; return its value."""
    return WebDriverWait(driver, seconds).until(lambda d: d.execute_script(f"return {script}"))


def open_page(driver, url: str) -> None:
    driver.get(url + "/")
    wait(driver, "document.body.dataset.ready === 'true'")


def ask(driver, question: str) -> None:
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    driver.find_element(By.ID, "ask").click()
    wait(driver, "!document.getElementById('answer').hidden && document.getElementById('stop').disabled")


def click_node(driver, name: str) -> None:
    """A real mouse click on the node, wherever the layout put it."""
    x, y = driver.execute_script(
        "const p = arkg.network.getPosition(arguments[0]); const d = arkg.network.canvasToDOM(p); return [d.x, d.y];", name
    )
    canvas = driver.find_element(By.CSS_SELECTOR, "#graph canvas")
    size = canvas.size
    ActionChains(driver).move_to_element_with_offset(canvas, x - size["width"] / 2, y - size["height"] / 2).click().perform()


def two_hop_model() -> ScriptedModel:
    return ScriptedModel.from_replies(
        [
            "Marie Curie",
            "child",
            {"cited_keys": ["T1"], "implication": "Irène Joliot-Curie is her child.", "continue_exploring": True},
            "Irène Joliot-Curie",
            "award received",
            {"cited_keys": ["T3"], "implication": "Irène received the Nobel Prize in Chemistry.", "continue_exploring": False},
            {"explanation": "Her daughter Irène Joliot-Curie received the Nobel Prize in Chemistry, a Nobel Prize.", "answer": "yes"},
        ]
    )


def test_the_page_asks_and_draws_the_explored_graph_step_by_step(browser, tmp_path):
    with live_server(create_app(Session(model=two_hop_model()), ServerConfig())) as server:
        open_page(browser, server.url)
        assert browser.find_element(By.ID, "model").text == "scripted"
        assert browser.find_element(By.ID, "kg").text == "the sample KG"
        assert Select(browser.find_element(By.ID, "strategy")).first_selected_option.text == "ark"
        ask(browser, TWO_HOPS)

        assert browser.find_element(By.ID, "answer-value").text == "True"
        assert browser.find_element(By.ID, "explanation").text.startswith("Her daughter Irène Joliot-Curie")
        cited = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#cited li")]
        assert cited == [
            "(Marie Curie, child, Irène Joliot-Curie)",
            "(Irène Joliot-Curie, award received, Nobel Prize in Chemistry) [point in time: 1935; source: nobelprize.org]",
        ]
        anchors = browser.execute_script("return arkg.nodes.get({filter: n => n.anchor}).map(n => n.id).sort()")
        assert anchors == ["Irène Joliot-Curie", "Marie Curie"]
        edges = browser.execute_script("return arkg.edges.get().map(e => [e.from, e.label, e.to, e.cited, e.followed])")
        assert sorted(edges) == [
            ["Irène Joliot-Curie", "award received", "Nobel Prize in Chemistry", True, True],
            ["Marie Curie", "child", "Irène Joliot-Curie", True, True],
            ["Marie Curie", "child", "Ève Curie", False, True],
        ]
        # Edge props are in the tooltip the graph shows on hover.
        tooltip = browser.execute_script("return arkg.edges.get({filter: e => e.label === 'award received'})[0].title.textContent")
        assert tooltip == "T3: (Irène Joliot-Curie, award received, Nobel Prize in Chemistry) [point in time: 1935; source: nobelprize.org]"

        steps = browser.find_elements(By.CSS_SELECTOR, "#steps li")
        assert [step.find_element(By.CLASS_NAME, "kind").text for step in steps][:4] == ["ANCHOR", "RELATIONS", "RELATION", "TRIPLES"]
        assert len(steps) == 13
        # 13 events, but 2 reasoning steps (ARK's k) of 7 model calls.
        assert re.fullmatch(r"done in \d+ s: 2 reasoning steps, 7 model calls", browser.find_element(By.ID, "status").text)
        steps[3].click()  # the first facts: the step and its part of the graph are selected
        assert "selected" in steps[3].get_attribute("class")
        selected = browser.execute_script("return arkg.network.getSelection()")
        assert sorted(selected["nodes"]) == sorted(["Marie Curie", "Irène Joliot-Curie", "Ève Curie"])
        assert len(selected["edges"]) == 2

        click_node(browser, "Irène Joliot-Curie")  # its KG edges, from the API
        wait(browser, "document.getElementById('details-title').textContent === 'Irène Joliot-Curie' && document.querySelectorAll('#details-body li').length > 0")
        details = browser.find_element(By.ID, "details-body").text
        assert "(Irène Joliot-Curie, award received, Nobel Prize in Chemistry) [point in time: 1935; source: nobelprize.org]" in details
        assert "(Marie Curie, child, Irène Joliot-Curie)" in details  # incoming
        canvas = browser.find_element(By.CSS_SELECTOR, "#graph canvas")  # the mouse off every node: no tooltip in the picture
        ActionChains(browser).move_to_element_with_offset(canvas, 10 - canvas.size["width"] // 2, 10 - canvas.size["height"] // 2).perform()
        browser.execute_script("arkg.network.unselectAll(); arkg.network.fit()")
        screenshot = Path(os.environ.get("ARKG_SCREENSHOT") or tmp_path / "arkg-serve.png")
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        assert browser.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 10_000


def test_while_a_run_goes_on_the_page_shows_its_step_its_model_calls_and_the_time(browser):
    """The fourth model call (step 2's anchor) waits until the test has seen the clock run on."""
    replies, release = two_hop_model().function, threading.Event()

    def slow(messages, output, sampling):  # type: ignore[no-untyped-def]
        if model.call_count == 4:
            release.wait(30)
        return replies(messages, output, sampling)

    model = ScriptedModel(slow)
    with live_server(create_app(Session(model=model), ServerConfig(strategy="ark"))) as server:
        open_page(browser, server.url)
        box = browser.find_element(By.ID, "question")
        box.send_keys(TWO_HOPS)
        browser.find_element(By.ID, "ask").click()
        running = r"running… step (\d+), 3 model calls · (\d+) s"
        first = wait(browser, f"document.getElementById('status').textContent.match(/{running}/)")
        later = wait(browser, f"(m => m && Number(m[2]) >= {int(first[2]) + 2} && m)(document.getElementById('status').textContent.match(/{running}/))")
        assert first[1] == later[1] == "1"
        release.set()
        wait(browser, "!document.getElementById('answer').hidden && document.getElementById('stop').disabled")
        assert re.fullmatch(r"done in \d+ s: 2 reasoning steps, 7 model calls", browser.find_element(By.ID, "status").text)


def test_the_lines_computed_for_the_answer_are_listed_under_the_cited_facts(browser):
    replies = [
        "Pierre Curie", "date of birth", {"cited_keys": ["T1"], "implication": "Born 15 May 1859.", "continue_exploring": True},
        "Marie Curie", "date of birth", {"cited_keys": ["T2"], "implication": "Born 7 November 1867.", "continue_exploring": False},
        {"explanation": "15 May 1859 is before 7 November 1867.", "answer": "yes"},
    ]  # fmt: skip
    with live_server(create_app(Session(model=ScriptedModel.from_replies(replies)), ServerConfig())) as server:
        open_page(browser, server.url)
        assert not browser.find_element(By.ID, "computed-panel").is_displayed()
        browser.find_element(By.ID, "settings").send_keys('{"compare_values": true}')
        ask(browser, "Was Pierre Curie born before Marie Curie?")
        computed = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#computed li")]
        assert computed[0] == "Earliest date of birth cited: Pierre Curie (15 May 1859); latest: Marie Curie (7 November 1867)."
        assert len(computed) == 2 and browser.find_element(By.ID, "computed-panel").is_displayed()


def test_kg_text_is_shown_as_text_and_never_runs(browser, tmp_path):
    store = tmp_path / "xss.db"
    with SQLiteGraph(store) as graph:
        graph.add_triples(
            [
                Triple("Mallory", "note", SCRIPT),
                Triple("Mallory", "note", IMAGE, {"<b>prop</b>": '<img src=y onerror="window.__xss = 3">'}),
            ]
        )
        graph.build_search_index()
    fields = {
        "cited_keys": ["T1", "T2"],
        "implication": IMAGE,
        "continue_exploring": False,
        "explanation": SCRIPT,
        "answer": IMAGE,
    }
    model = TestModel(prefer=("Mallory", "note"), fields=fields)
    session = Session(SQLiteGraph(store, create=False, read_only=True), model)
    with live_server(create_app(session, ServerConfig(kg_name=IMAGE))) as server:
        open_page(browser, server.url)
        ask(browser, "What did Mallory note?")
        assert browser.find_element(By.ID, "kg").text == IMAGE
        assert browser.find_element(By.ID, "answer-value").text == IMAGE
        assert browser.find_element(By.ID, "explanation").text == SCRIPT
        cited = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#cited li")]
        assert cited == [f"(Mallory, note, {SCRIPT})", f'(Mallory, note, {IMAGE}) [<b>prop</b>: <img src=y onerror="window.__xss = 3">]']
        assert SCRIPT in browser.find_element(By.ID, "steps").text
        click_node(browser, "Mallory")
        wait(browser, "document.querySelectorAll('#details-body li').length === 2")
        assert f"(Mallory, note, {SCRIPT})" in browser.find_element(By.ID, "details-body").text
        assert browser.execute_script("return window.__xss") is None
        assert browser.execute_script("return document.querySelectorAll('img, script:not([src]), b').length") == 0


def test_a_saved_trace_replays_on_the_page(browser, tmp_path):
    with Session(model=curie_model()) as session:
        (tmp_path / "ask.json").write_text(session.ask(SAMPLE_QUESTION).model_dump_json())
    with live_server(create_app(Session(model=curie_model()), ServerConfig(traces=tmp_path))) as server:
        open_page(browser, server.url)
        browser.find_element(By.CSS_SELECTOR, "#replay-panel summary").click()
        wait(browser, "document.querySelectorAll('#trace-file option').length === 2")
        Select(browser.find_element(By.ID, "trace-file")).select_by_value("ask.json")
        wait(browser, "document.querySelectorAll('#trace-run option').length === 1")
        browser.find_element(By.ID, "replay").click()
        wait(browser, "!document.getElementById('answer').hidden")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#steps li")) == 7
        assert browser.find_element(By.ID, "question").get_attribute("value") == SAMPLE_QUESTION
        cited = browser.execute_script("return arkg.edges.get({filter: e => e.cited}).map(e => [e.from, e.label, e.to])")
        assert cited == [["Marie Curie", "place of birth", "Warsaw"]]
        assert browser.execute_script("return arkg.nodes.get('Marie Curie').anchor") is True


@pytest.mark.parametrize(
    ("reply", "state", "basis"),
    [
        ({"cited_keys": ["T1"], "explanation": "I recall it.", "answer": "Paris"}, "unsupported", "basis: unsupported · unsupported: "),
        ({"cited_keys": ["T1", "T9"], "explanation": "Her place of birth is Warsaw.", "answer": "Warsaw"}, "supported", "basis: kg · supported"),
    ],
)
def test_an_unsupported_answer_looks_unlike_a_supported_one_and_says_why(browser, reply, state, basis):
    session = Session(model=ScriptedModel.from_replies([reply]))
    with live_server(create_app(session, ServerConfig(strategy="kaping"))) as server:
        open_page(browser, server.url)
        ask(browser, "Where was Marie Curie born?")
        assert browser.execute_script("return document.getElementById('answer').dataset.support") == state
        assert browser.find_element(By.ID, "basis").text.startswith(basis)
        colour = browser.execute_script("return getComputedStyle(document.querySelector('#cited li')).color")
        green = "rgb(22, 163, 74)"  # --cited: the colour of facts that support the answer
        assert (colour == green) == (state == "supported"), colour
