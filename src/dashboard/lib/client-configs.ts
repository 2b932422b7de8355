/**
 * Ready-to-paste configuration for the clients people already run, with a key filled
 * in: MCP clients over HTTP or through `ragd mcp`, and LangChain and LlamaIndex
 * retrievers over the query endpoint. docs/agents.md and docs/applications.md show the same.
 */
import { t } from "../i18n";

export interface ClientConfig {
  id: "mcp-http" | "mcp-stdio" | "langchain" | "llamaindex";
  /** Short name for the chooser. */
  label: string;
  /** Where the snippet goes. */
  hint: string;
  code: string;
}

/**
 * The snippets for a server at `origin` (e.g. http://127.0.0.1:8484) and one API key.
 * `executable` is what GET /api/mcp/command said: the server's own executable (the MCP
 * client starts `ragd mcp` with it), null when the server runs from source (there is none
 * to name: the hint says to build it), undefined when not known (a bare `ragd`, on the PATH).
 */
export function clientConfigs(origin: string, key: string, executable?: string | null): ClientConfig[] {
  const http = {
    mcpServers: { ragd: { type: "http", url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
  };
  const command = executable ?? "ragd";
  const stdio = {
    mcpServers: { ragd: { command, args: ["mcp", "--url", origin], env: { RAGD_API_KEY: key } } },
  };
  const commandHint =
    executable === undefined
      ? t("clients.mcpCommand")
      : executable === null
        ? t("clients.mcpBuildFirst")
        : t("clients.mcpCommandHere");
  return [
    {
      id: "mcp-http",
      label: "MCP (HTTP)",
      hint: t("clients.mcpHttp"),
      code: JSON.stringify(http, null, 2),
    },
    {
      id: "mcp-stdio",
      label: t("clients.mcpCommandLabel"),
      hint: commandHint,
      code: JSON.stringify(stdio, null, 2),
    },
    { id: "langchain", label: "LangChain", hint: t("clients.langchain"), code: langchain(origin, key) },
    { id: "llamaindex", label: "LlamaIndex", hint: t("clients.llamaindex"), code: llamaindex(origin, key) },
  ];
}

function langchain(origin: string, key: string): string {
  return `import requests
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever


class RagdRetriever(BaseRetriever):
    url: str = "${origin}"
    api_key: str = "${key}"
    top_k: int = 5

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        r = requests.post(
            f"{self.url}/api/rag/query",
            json={"query": query, "topK": self.top_k},
            headers={"Authorization": f"Bearer {self.api_key}"},
            timeout=30,
        )
        r.raise_for_status()
        return [
            Document(page_content=x["content"], metadata={**x["metadata"], "score": x["score"]})
            for x in r.json()["results"]
        ]


retriever = RagdRetriever()
docs = retriever.invoke("your question")
`;
}

function llamaindex(origin: string, key: string): string {
  return `import requests
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode


class RagdRetriever(BaseRetriever):
    def __init__(self, url: str = "${origin}", api_key: str = "${key}", top_k: int = 5):
        self._url, self._api_key, self._top_k = url, api_key, top_k
        super().__init__()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        r = requests.post(
            f"{self._url}/api/rag/query",
            json={"query": query_bundle.query_str, "topK": self._top_k},
            headers={"Authorization": f"Bearer {self._api_key}"},
            timeout=30,
        )
        r.raise_for_status()
        return [
            NodeWithScore(node=TextNode(text=x["content"], metadata=x["metadata"]), score=x["score"])
            for x in r.json()["results"]
        ]


retriever = RagdRetriever()
nodes = retriever.retrieve("your question")
`;
}

/**
 * For a key that may ingest but not query: a document pushed with the documents API
 * (docs/API.md, Documents by external ID), the call such a key exists for.
 */
export function documentsExample(origin: string, key: string): string {
  return `curl -X PUT ${origin}/api/rag/documents/refund-policy \\
  -H "Authorization: Bearer ${key}" \\
  -H "content-type: application/json" \\
  -d '{"type":"text","content":"Refunds take 5 business days.","metadata":{"lang":"en"}}'
`;
}
