"""A task with no browser: look a customer up over a local HTTP API and file a ticket for them,
with two tools made from typed functions, their arguments filled by the local diffusion executor.
The plan needs a planner that knows function tools (the embedded one was trained on browser pages
only): `OPENAI_BASE_URL=... python examples/ticket_desk.py`. tests/tools/test_ticket_desk_example.py
runs it with the plans such a planner writes."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Annotated, Literal, Optional
from urllib.parse import parse_qs, urlsplit

import httpx
from pydantic import BaseModel, Field

from agentpair import Agent, FunctionTools, tool

CUSTOMERS = [{"id": 1042, "name": "Ines Varga", "email": "ines@oar.example"},
             {"id": 2210, "name": "Tomas Berg", "email": "tomas@fjord.example"}]


class Desk(BaseHTTPRequestHandler):
    """The API: GET /customers?email=..., POST /tickets (JSON); the tickets filed stay in `tickets`."""

    tickets: list[dict] = []

    def do_GET(self) -> None:
        email = parse_qs(urlsplit(self.path).query).get("email", [""])[0]
        self._send(200, [c for c in CUSTOMERS if c["email"] == email.strip().lower()])

    def do_POST(self) -> None:
        ticket = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if ticket.get("customer_id") not in {c["id"] for c in CUSTOMERS}:
            return self._send(404, {"error": f"no customer {ticket.get('customer_id')}"})
        self.tickets.append(ticket)
        self._send(201, {"ticket": len(self.tickets), **ticket})

    def _send(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class Contact(BaseModel):
    name: str
    email: Optional[str] = None


def desk_tools(base_url: str) -> FunctionTools:
    @tool
    def find_customer(email: str) -> list[dict]:
        """Find customers by e-mail address.

        Args:
            email: the customer's e-mail address
        """
        return httpx.get(f"{base_url}/customers", params={"email": email}).raise_for_status().json()

    @tool
    def file_ticket(customer_id: Annotated[int, Field(ge=1)], subject: Annotated[str, Field(min_length=1)],
                    priority: Literal["low", "normal", "high"] = "normal", contact: Optional[Contact] = None) -> dict:
        """File a support ticket for a customer.

        Args:
            customer_id: the customer's id number
            subject: one line saying what is wrong
        """
        body = {"customer_id": customer_id, "subject": subject, "priority": priority,
                "contact": contact.model_dump() if contact else None}
        return httpx.post(f"{base_url}/tickets", json=body).raise_for_status().json()

    return FunctionTools([find_customer, file_ticket])


GOAL = ("Find the customer with the e-mail address ines@oar.example, then file a high priority ticket "
        "for that customer with the subject Router keeps rebooting.")


def serve() -> ThreadingHTTPServer:
    """The API on a free loopback port, served from a thread."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Desk)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    server = serve()
    try:
        result = Agent(browser=desk_tools(f"http://127.0.0.1:{server.server_port}")).run_sync(GOAL, max_steps=6)
        print(json.dumps({"finished": result.finished, "steps": len(result.steps), "tickets": Desk.tickets}))
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
