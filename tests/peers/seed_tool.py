"""The user's documented example tool (`query_local_db`), shared by the
peers: its Python source as a client registers it, and the client's own
implementation over a few local articles."""

SOURCE = '''def query_local_db(query: str, category: str = None):
    """
    Search articles in the local DB.

    Args:
        query (str): Search keyword.
        category (str): Article category (optional).
    """
    return "WAITING_FOR_CLIENT_EXECUTION"
'''

ARTICLES = [
    {"title": "Rust và SQLite", "category": "tech", "price_vnd": 129000},
    {"title": "Phở bò Nam Định", "category": "food", "price_vnd": 65000},
]


def query_local_db(query, category=None):
    """The client's real logic: its own local data."""
    return [a for a in ARTICLES if query.lower() in a["title"].lower() and category in (None, a["category"])]
