"""The README's picture of the page: `arkg serve` with its defaults (the bundled model, the default
strategy, the sample KG) answering one question in Debian's headless Chromium.

    python bench/page_screenshot.py --out docs/images/arkg-serve.png

Needs the web and dev extras and Chromium (`apt-get install chromium chromium-driver`). The server runs
on 127.0.0.1 for the shot and is stopped after it; prints the answer the page showed.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from arkg.processes import stop_process

QUESTION = "Was Pierre Curie born before Marie Curie?"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_serving(url: str, server: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"arkg serve exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/info", timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    sys.exit(f"arkg serve did not answer at {url} within {seconds} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--question", default=QUESTION)
    arguments = parser.parse_args()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "arkg", "serve", "--port", str(port), "--no-cache"], stderr=subprocess.DEVNULL)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900", "--lang=en-US"):
        options.add_argument(argument)
    try:
        _wait_until_serving(url, server)
        driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
        try:
            driver.get(url + "/")
            wait = WebDriverWait(driver, 300)
            wait.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
            driver.find_element(By.ID, "question").send_keys(arguments.question)
            driver.find_element(By.ID, "ask").click()
            wait.until(lambda d: d.execute_script(
                "return !document.getElementById('answer').hidden && document.getElementById('stop').disabled"
            ))  # fmt: skip
            driver.execute_script("arkg.network.unselectAll(); arkg.network.fit()")
            time.sleep(2)  # the graph's layout settles
            arguments.out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(arguments.out))
            answer = driver.find_element(By.ID, "answer-value").text
            status = driver.find_element(By.ID, "status").text
            print(f"{arguments.question} -> {answer} ({status}); {arguments.out}")
        finally:
            driver.quit()
    finally:
        stop_process(server, grace_s=15)


if __name__ == "__main__":
    main()
