# event_replay.awk: events.jsonl lines on stdin -> RESP display frames on stdout
# (the replay stage of bash-agent; ipc-sessions.md section 5.2).
#
#   LC_ALL=C awk -f event_replay.awk < selected-events.jsonl
#   LC_ALL=C awk -v er_rich=1 -f event_replay.awk ...   # also background-task results,
#                                                       # compactions and user injections
#
# Runs with mawk, gawk and busybox awk in the C locale (lengths are bytes). Every function
# and global carries the er_ prefix, so the file can be loaded after other helper libraries.
#
# Each line is checked as one JSON object (strict structure, lenient string bytes); a line
# that is not is skipped. Values are looked up among the top-level members, first one wins.
#
#   user_input        USER_MESSAGE content            (non-empty only)
#   text / thinking   TEXT / THINKING content         (non-empty only)
#   tool_call         TOOL_CALL name id input k1 v1 ... (input raw, {} if missing; kv = the
#                     input's top-level members, strings decoded, other values raw JSON)
#   tool_result       TOOL_RESULT id name content     (content cut to 200 bytes + "...")
#   sub_agent_result  AGENT_RESULT sid status in out thinking text
#   error             ERROR message
#   user_message      USER_MESSAGE content            (legacy, even if empty)
#   assistant_message TEXT text, then TOOL_CALL per tool_calls entry (legacy)
#   er_rich only:     async_task_result -> ASYNC_TASK_RESULT id code output;
#                     context_update -> CONTEXT_UPDATE kind trigger;
#                     user_notify -> USER_NOTIFY content;
#                     rewind -> REWIND action to turns restored
#   anything else     nothing

BEGIN { er_init() }
{ er_line($0) }

function er_init(   i, h) {
	for (i = 1; i < 256; i++) er_chr[i] = sprintf("%c", i)
	er_chr[0] = ""
	h = "0123456789abcdef"
	for (i = 1; i <= 16; i++) {
		er_hexv[substr(h, i, 1)] = i - 1
		er_hexv[toupper(substr(h, i, 1))] = i - 1
	}
	er_hex4 = "[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]"
	er_re_str = "^\"([^\"\\\\]|\\\\[\"\\\\/bfnrt]|\\\\u" er_hex4 ")*\""
	er_re_num = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?"
	er_ws_chars = " \t\n\r"
	er_maxdepth = 100
}

# ---- output -------------------------------------------------------------------------

function er_emit(n,   i) {
	printf "*%d\r\n", n
	for (i = 1; i <= n; i++) printf "$%d\r\n%s\r\n", length(er_f[i]), er_f[i]
}

# ---- JSON scanning over er_s (the line), er_n (its length), er_p (the cursor) --------

function er_ws() {
	while (er_p <= er_n && index(er_ws_chars, substr(er_s, er_p, 1)) > 0) er_p++
}

# Length of the token matching re at er_p (0 if none). Matches run on a growing window,
# not the whole rest of the line, so a line with many tokens stays linear.
function er_match(re,   w, rest) {
	rest = er_n - er_p + 1
	for (w = 4096; ; w *= 4) {
		if (w >= rest) return match(substr(er_s, er_p), re) ? RLENGTH : 0
		if (match(substr(er_s, er_p, w), re) && RLENGTH < w) return RLENGTH
	}
}

# Scan one value at er_p; on success set er_vt (s n o a l), er_vs, er_ve (exclusive)
# and return 1.
function er_val(depth,   c, st, dummyk, dummys, dummye, dummyt) {
	er_ws()
	if (er_p > er_n) return 0
	c = substr(er_s, er_p, 1)
	st = er_p
	if (c == "\"") {
		if (!(c = er_match(er_re_str))) return 0
		er_p += c
		er_vt = "s"
	} else if (c == "{") {
		if (depth >= er_maxdepth) return 0
		if (er_members(depth + 1, dummyk, dummys, dummye, dummyt) < 0) return 0
		er_vt = "o"
	} else if (c == "[") {
		if (depth >= er_maxdepth) return 0
		if (!er_array(depth + 1)) return 0
		er_vt = "a"
	} else if (c == "t" || c == "f" || c == "n") {
		if (substr(er_s, er_p, 4) == "true" || substr(er_s, er_p, 4) == "null") er_p += 4
		else if (substr(er_s, er_p, 5) == "false") er_p += 5
		else return 0
		er_vt = "l"
	} else {
		if (!(c = er_match(er_re_num))) return 0
		er_p += c
		er_vt = "n"
	}
	er_vs = st
	er_ve = er_p
	return 1
}

function er_array(depth) {
	er_p++
	er_ws()
	if (substr(er_s, er_p, 1) == "]") { er_p++; return 1 }
	while (1) {
		if (!er_val(depth)) return 0
		er_ws()
		if (substr(er_s, er_p, 1) == ",") { er_p++; continue }
		if (substr(er_s, er_p, 1) == "]") { er_p++; return 1 }
		return 0
	}
}

# Scan the object at er_p; record its members (decoded key, value start, end, type) into
# K, S, E, T (1-based); return the member count, or -1 if malformed.
function er_members(depth, K, S, E, T,   n, ks, k) {
	n = 0
	er_p++
	er_ws()
	if (substr(er_s, er_p, 1) == "}") { er_p++; return 0 }
	while (1) {
		er_ws()
		if (substr(er_s, er_p, 1) != "\"") return -1
		if (!(k = er_match(er_re_str))) return -1
		ks = substr(er_s, er_p, k)
		er_p += k
		er_ws()
		if (substr(er_s, er_p, 1) != ":") return -1
		er_p++
		if (!er_val(depth)) return -1
		n++
		K[n] = er_dec(ks)
		S[n] = er_vs
		E[n] = er_ve
		T[n] = er_vt
		er_ws()
		if (substr(er_s, er_p, 1) == ",") { er_p++; continue }
		if (substr(er_s, er_p, 1) == "}") { er_p++; return n }
		return -1
	}
}

# ---- string decoding ------------------------------------------------------------------

function er_utf8(cp) {
	if (cp < 128) return er_chr[cp]
	if (cp < 2048) return er_chr[192 + int(cp / 64)] er_chr[128 + cp % 64]
	if (cp < 65536) return er_chr[224 + int(cp / 4096)] er_chr[128 + int(cp / 64) % 64] er_chr[128 + cp % 64]
	return er_chr[240 + int(cp / 262144)] er_chr[128 + int(cp / 4096) % 64] er_chr[128 + int(cp / 64) % 64] er_chr[128 + cp % 64]
}

function er_hex(h) {
	return er_hexv[substr(h, 1, 1)] * 4096 + er_hexv[substr(h, 2, 1)] * 256 + er_hexv[substr(h, 3, 1)] * 16 + er_hexv[substr(h, 4, 1)]
}

# Concatenate A[1..n] by pairwise merging (linear appends are quadratic in some awks).
function er_join(A, n,   step, i) {
	if (n < 1) return ""
	for (step = 1; step < n; step *= 2)
		for (i = 1; i + step <= n; i += 2 * step) A[i] = A[i] A[i + step]
	return A[1]
}

# Decode a validated JSON string token (with its quotes).
function er_dec(raw,   t, G, ng, g, OUT) {
	t = substr(raw, 2, length(raw) - 2)
	if (index(t, "\\") == 0) return t
	# Split at escaped backslashes: inside a segment every backslash starts an escape.
	ng = split(t, G, "\\\\\\\\")
	for (g = 1; g <= ng; g++) {
		OUT[2 * g - 1] = er_dec_seg(G[g])
		OUT[2 * g] = "\\"
	}
	return er_join(OUT, 2 * ng - 1)
}

function er_dec_seg(t,   U, nu, i, cp, lo, P, np) {
	if (index(t, "\\") == 0) return t
	gsub("\\\\\"", "\"", t)
	gsub("\\\\/", "/", t)
	gsub("\\\\n", "\n", t)
	gsub("\\\\t", "\t", t)
	gsub("\\\\r", "\r", t)
	gsub("\\\\b", "\b", t)
	gsub("\\\\f", "\f", t)
	if (index(t, "\\u") == 0) return t
	nu = split(t, U, "\\\\u")
	np = 1
	P[1] = U[1]
	for (i = 2; i <= nu; i++) {
		cp = er_hex(substr(U[i], 1, 4))
		if (cp >= 55296 && cp < 56320 && length(U[i]) == 4 && i < nu) {
			lo = er_hex(substr(U[i + 1], 1, 4))
			if (lo >= 56320 && lo < 57344) {
				i++
				cp = 65536 + (cp - 55296) * 1024 + (lo - 56320)
			}
		}
		P[++np] = er_utf8(cp)
		P[++np] = substr(U[i], 5)
	}
	return er_join(P, np)
}

# ---- member lookup ----------------------------------------------------------------------

# Index of the first member named k in er_K (0 if none).
function er_find(k,   i) {
	for (i = 1; i <= er_nm; i++) if (er_K[i] == k) return i
	return 0
}

# A string member, decoded ("" when missing or not a string).
function er_str(k,   i) {
	i = er_find(k)
	if (i == 0 || er_T[i] != "s") return ""
	return er_dec(substr(er_s, er_S[i], er_E[i] - er_S[i]))
}

# A member as text: strings decoded, other values raw ("" when missing).
function er_txt(k,   i) {
	i = er_find(k)
	if (i == 0) return ""
	if (er_T[i] == "s") return er_dec(substr(er_s, er_S[i], er_E[i] - er_S[i]))
	return substr(er_s, er_S[i], er_E[i] - er_S[i])
}

# ---- translation ------------------------------------------------------------------------

# TOOL_CALL for the tool-call object whose name/id/input start at positions in er_s.
# ns, is, ie: the name string, the id string, the input span (ie == 0: missing).
function er_tool_call(name, id, is, ie, it,   n, IK, IS, IE, IT, m, i, save) {
	er_f[1] = "TOOL_CALL"
	er_f[2] = name
	er_f[3] = id
	er_f[4] = (ie > 0) ? substr(er_s, is, ie - is) : "{}"
	n = 4
	if (ie > 0 && it == "o") {
		save = er_p
		er_p = is
		m = er_members(1, IK, IS, IE, IT)
		er_p = save
		for (i = 1; i <= m; i++) {
			er_f[++n] = IK[i]
			if (IT[i] == "s") er_f[++n] = er_dec(substr(er_s, IS[i], IE[i] - IS[i]))
			else er_f[++n] = substr(er_s, IS[i], IE[i] - IS[i])
		}
	}
	er_emit(n)
}

function er_one(type, content) {
	er_f[1] = type
	er_f[2] = content
	er_emit(2)
}

# Legacy assistant_message: TEXT text, then one TOOL_CALL per tool_calls entry.
function er_assistant(   t, i, save, n, AK, AS, AE, AT, j, k, CK, CS, CE, CT, m, nm, id, ni, ii) {
	t = er_str("text")
	if (t != "") er_one("TEXT", t)
	i = er_find("tool_calls")
	if (i == 0 || er_T[i] != "a") return
	save = er_p
	er_p = er_S[i] + 1
	while (1) {
		er_ws()
		if (substr(er_s, er_p, 1) == "{") {
			k = er_p
			m = er_members(1, CK, CS, CE, CT)
			nm = ""; id = ""; ii = 0
			for (j = m; j >= 1; j--) {
				if (CK[j] == "name") nm = (CT[j] == "s") ? er_dec(substr(er_s, CS[j], CE[j] - CS[j])) : ""
				if (CK[j] == "id") id = (CT[j] == "s") ? er_dec(substr(er_s, CS[j], CE[j] - CS[j])) : ""
				if (CK[j] == "input") ii = j
			}
			ni = er_p
			if (ii > 0) er_tool_call(nm, id, CS[ii], CE[ii], CT[ii])
			else er_tool_call(nm, id, 0, 0, "")
			er_p = ni
		} else if (substr(er_s, er_p, 1) != "]") {
			er_val(1)
		}
		er_ws()
		if (substr(er_s, er_p, 1) == ",") { er_p++; continue }
		break
	}
	er_p = save
}

function er_line(line,   type, c, i) {
	er_s = line
	er_n = length(line)
	er_p = 1
	er_ws()
	if (substr(er_s, er_p, 1) != "{") return
	split("", er_K); split("", er_S); split("", er_E); split("", er_T)
	er_nm = er_members(1, er_K, er_S, er_E, er_T)
	if (er_nm < 0) return
	er_ws()
	if (er_p <= er_n) return
	type = er_str("type")
	if (type == "user_input" || type == "text" || type == "thinking") {
		c = er_str("content")
		if (c == "") return
		er_one(type == "user_input" ? "USER_MESSAGE" : (type == "text" ? "TEXT" : "THINKING"), c)
	} else if (type == "tool_call") {
		i = er_find("input")
		if (i > 0) er_tool_call(er_str("name"), er_str("id"), er_S[i], er_E[i], er_T[i])
		else er_tool_call(er_str("name"), er_str("id"), 0, 0, "")
	} else if (type == "tool_result") {
		c = er_str("content")
		if (length(c) > 200) c = substr(c, 1, 200) "..."
		er_f[1] = "TOOL_RESULT"
		er_f[2] = er_str("tool_use_id")
		er_f[3] = er_str("name")
		er_f[4] = c
		er_emit(4)
	} else if (type == "sub_agent_result") {
		er_f[1] = "AGENT_RESULT"
		er_f[2] = er_str("session_id")
		er_f[3] = er_str("status")
		er_f[4] = er_txt("input_tokens")
		er_f[5] = er_txt("output_tokens")
		er_f[6] = er_str("thinking")
		er_f[7] = er_str("text")
		er_emit(7)
	} else if (type == "error") {
		er_one("ERROR", er_str("message"))
	} else if (type == "user_message") {
		er_one("USER_MESSAGE", er_str("content"))
	} else if (type == "assistant_message") {
		er_assistant()
	} else if (er_rich && type == "async_task_result") {
		er_f[1] = "ASYNC_TASK_RESULT"
		er_f[2] = er_str("task_id")
		er_f[3] = er_txt("exit_code")
		er_f[4] = er_str("output")
		er_emit(4)
	} else if (er_rich && type == "context_update") {
		er_f[1] = "CONTEXT_UPDATE"
		er_f[2] = er_str("kind")
		er_f[3] = er_str("trigger")
		er_emit(3)
	} else if (er_rich && type == "user_notify") {
		er_one("USER_NOTIFY", er_str("content"))
	} else if (er_rich && type == "rewind") {
		er_f[1] = "REWIND"
		er_f[2] = er_str("action")
		er_f[3] = er_txt("to")
		er_f[4] = er_txt("turns")
		er_f[5] = er_txt("restored")
		er_emit(5)
	}
}
