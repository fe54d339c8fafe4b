package triples

// llamaCppPythonRejection is what llama-cpp-python 0.3.36's server answers,
// with status 500, to response_format {"type": "json_schema"} (captured from
// the server scripts/llm.sh starts; the venv path shortened): a validation
// error with a stack trace inside the JSON message.
const llamaCppPythonRejection = `{"error":{"message":"1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/home/user/venv/lib/python3.11/site-packages/llama_cpp/server/app.py\", line 376, in create_chat_completion\n    POST /v1/chat/completions","type":"internal_server_error","param":null,"code":null}}`
