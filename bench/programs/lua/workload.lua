-- Layout benchmark workload for the Lua interpreter: a mix of what Lua
-- programs spend their time on.  Every round builds and throws away
-- tables, strings, closures and coroutines (so the collector runs),
-- compiles generated chunks with load(), and prints one checksum line per
-- part.  The output depends only on the round count: no pairs() order,
-- no addresses, no clocks, a fixed random seed.
--
-- usage: lua workload.lua ROUNDS

local rounds = tonumber(arg[1]) or 1
math.randomseed(42)

local function h(acc, x) -- order-dependent checksum
	return (acc * 31 + x) % 1000000007
end

local function hstr(acc, s)
	for i = 1, #s, 7 do acc = h(acc, s:byte(i)) end
	return h(acc, #s)
end

-- tables: arrays, string-keyed records, sort, insert/remove, concat
local function tables(n)
	local acc = 0
	local a = {}
	for i = 1, n do a[i] = (i * 7919) % 1000 end
	table.sort(a)
	for i = 1, n, 13 do acc = h(acc, a[i]) end
	local recs = {}
	for i = 1, n // 4 do
		recs[#recs + 1] = { name = "item" .. (i % 97), price = (i * 37) % 500 / 4, qty = i % 13 }
	end
	table.sort(recs, function(x, y)
		if x.price ~= y.price then return x.price < y.price end
		if x.name ~= y.name then return x.name < y.name end
		return x.qty < y.qty
	end)
	local total = 0
	for _, r in ipairs(recs) do total = total + r.price * r.qty end
	acc = h(acc, math.floor(total))
	local count = {}
	for i = 1, n do
		local k = "k" .. (i % 211)
		count[k] = (count[k] or 0) + 1
	end
	local keys = {}
	for k in pairs(count) do keys[#keys + 1] = k end
	table.sort(keys)
	for _, k in ipairs(keys) do acc = h(acc, count[k]) end
	local q = {}
	for i = 1, 200 do table.insert(q, 1, i) end
	for i = 1, 100 do acc = h(acc, table.remove(q)) end
	acc = hstr(acc, table.concat(q, ",", 1, 50))
	acc = h(acc, select("#", table.unpack(q, 1, 40)))
	local m = table.move(q, 1, 30, 5, {})
	return h(acc, #m)
end

-- strings: format, patterns, gsub with captures and functions, rep, pack
local words = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta",
	"theta", "iota", "kappa", "lambda", "mu" }
local function strings(n)
	local acc = 0
	local parts = {}
	for i = 1, n do
		parts[#parts + 1] = string.format("%s=%d;%5.2f|%x %q", words[i % #words + 1],
			i, i / 7, i * 13, words[(i * 5) % #words + 1])
	end
	local text = table.concat(parts, "\n")
	for w, num in text:gmatch("(%a+)=(%d+)") do
		acc = h(acc, #w + tonumber(num))
	end
	local s2 = text:gsub("(%a+)=(%d+)", "%2:%1")
	acc = hstr(acc, s2:sub(1, 2000))
	local s3 = text:gsub("%d+", function(d) return tostring(#d) end)
	acc = hstr(acc, s3:sub(-2000))
	acc = h(acc, select(2, text:gsub("[aeiou]", "")))
	local pos, found = 1, 0
	while true do
		local a, b = text:find("eta", pos, true)
		if not a then break end
		found = found + 1
		pos = b + 1
	end
	acc = h(acc, found)
	acc = hstr(acc, ("ab"):rep(50, "-"):upper():reverse())
	for i = 1, n // 10 do
		local p = string.pack("<i4 d s1", i, i / 3, words[i % #words + 1])
		local x, y, z = string.unpack("<i4 d s1", p)
		acc = h(acc, x + math.floor(y) + #z)
	end
	for _, c in utf8.codes("caf\u{e9} na\u{ef}ve \u{2603}") do acc = h(acc, c % 1000) end
	acc = h(acc, #tostring(1 / 3) + #tostring(2 ^ 60) + #tostring(-0.0))
	return acc
end

-- closures, varargs, higher-order functions, upvalues
local function closures(n)
	local function counter(step)
		local c = 0
		return function() c = c + step; return c end
	end
	local function map(f, t) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
	local function filter(p, t)
		local r = {}
		for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end
		return r
	end
	local function reduce(f, acc, t) for i = 1, #t do acc = f(acc, t[i]) end return acc end
	local function compose(...)
		local fs = { ... }
		return function(x)
			for i = #fs, 1, -1 do x = fs[i](x) end
			return x
		end
	end
	local acc = 0
	local cs = {}
	for i = 1, 50 do cs[i] = counter(i) end
	for r = 1, n // 50 do
		for i = 1, 50 do acc = h(acc, cs[i]() % 1000) end
	end
	local t = {}
	for i = 1, n do t[i] = i end
	local f = compose(function(x) return x + 1 end, function(x) return x * 3 end,
		function(x) return x // 2 end)
	local r = reduce(function(a, b) return (a + b) % 1000003 end, 0,
		filter(function(x) return x % 3 ~= 0 end, map(f, t)))
	acc = h(acc, r)
	local function sum(...)
		local s = 0
		for i = 1, select("#", ...) do s = s + select(i, ...) end
		return s
	end
	for i = 1, n // 20 do acc = h(acc, sum(i, i + 1, i + 2, i + 3, i + 4)) end
	return acc
end

-- metatables: a vector class with operators, inheritance, __index/__newindex
local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({ x = x, y = y }, Vec) end
function Vec.__add(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
function Vec.__sub(a, b) return Vec.new(a.x - b.x, a.y - b.y) end
function Vec.__mul(a, k) return Vec.new(a.x * k, a.y * k) end
function Vec.__eq(a, b) return a.x == b.x and a.y == b.y end
function Vec.__lt(a, b) return a:len2() < b:len2() end
function Vec.__tostring(a) return string.format("(%g,%g)", a.x, a.y) end
function Vec:len2() return self.x * self.x + self.y * self.y end
local Vec3 = setmetatable({}, { __index = Vec })
Vec3.__index = Vec3
Vec3.__add = Vec.__add
function Vec3.new(x, y, z)
	local v = Vec.new(x, y)
	v.z = z
	return setmetatable(v, Vec3)
end
function Vec3:len2() return Vec.len2(self) + self.z * self.z end

local function objects(n)
	local acc = 0
	local s = Vec.new(0, 0)
	local vs = {}
	for i = 1, n // 2 do
		local v = Vec.new(i % 17 - 8, i % 11 - 5)
		s = s + v * 2 - Vec.new(1, 1)
		vs[#vs + 1] = v
	end
	table.sort(vs, function(a, b) return a < b end)
	acc = hstr(acc, tostring(s) .. tostring(vs[1]) .. tostring(vs[#vs]))
	local eq = 0
	for i = 2, #vs do if vs[i] == vs[i - 1] then eq = eq + 1 end end
	acc = h(acc, eq)
	for i = 1, n // 8 do acc = h(acc, math.floor(Vec3.new(i, i + 1, i % 5):len2()) % 100000) end
	local log = {}
	local proxy = setmetatable({}, {
		__index = function(_, k) return #k end,
		__newindex = function(_, k, v) log[#log + 1] = k .. "=" .. tostring(v) end,
		__call = function(_, a, b) return a * b end,
		__len = function() return #log end,
	})
	for i = 1, n // 10 do
		proxy["f" .. i % 30] = i
		acc = h(acc, proxy["key" .. i % 7] + proxy(i, 3) % 1000)
	end
	return h(acc, #proxy)
end

-- coroutines: generators and a producer/consumer pipeline
local function coroutines(n)
	local function gen(limit)
		return coroutine.wrap(function()
			for i = 1, limit do coroutine.yield(i * i % 1009) end
		end)
	end
	local acc = 0
	for v in gen(n) do acc = h(acc, v) end
	local producer = coroutine.create(function()
		for i = 1, n // 4 do coroutine.yield(words[i % #words + 1] .. i) end
		return nil
	end)
	local filter = coroutine.wrap(function()
		while true do
			local ok, v = coroutine.resume(producer)
			if not v then break end
			if #v % 2 == 0 then coroutine.yield(v:upper()) end
		end
	end)
	for v in filter do acc = hstr(acc, v) end
	return acc
end

-- numbers: integer and float arithmetic, bit operations, conversions, math
local function numbers(n)
	local acc = 0
	local x = 1
	for i = 1, n * 4 do
		x = (x * 1103515245 + 12345) & 0x7fffffff
		acc = h(acc, (x >> 7) ~ (x << 3) & 0xffff)
	end
	local f = 0.0
	for i = 1, n * 2 do
		f = f + math.sin(i) * math.sqrt(i) / (1 + math.abs(math.cos(i)))
		f = math.fmod(f, 1000)
	end
	acc = h(acc, math.floor(f * 1000))
	for i = 1, n // 2 do
		local s = tostring(i * 1.5)
		acc = h(acc, math.tointeger(tonumber(s) * 2) or 0)
		acc = h(acc, tonumber("0x" .. string.format("%x", i)) % 1000)
	end
	for i = 1, n // 4 do acc = h(acc, math.random(1, 1000)) end
	acc = h(acc, math.ult(1, -1) and 1 or 0)
	acc = h(acc, (7 // 2) + (7 % -3) + math.floor(-3.5) + math.ceil(3.2))
	return acc
end

-- errors: pcall, error objects, xpcall with a handler
local function errors(n)
	local acc = 0
	local function risky(i)
		if i % 3 == 0 then error({ code = i }) end
		if i % 5 == 0 then error("bad " .. i, 0) end
		if i % 7 == 0 then local t = nil; return t.x end
		return i
	end
	for i = 1, n // 4 do
		local ok, e = pcall(risky, i)
		if ok then acc = h(acc, e)
		elseif type(e) == "table" then acc = h(acc, e.code)
		else acc = hstr(acc, e:gsub("^.-:%d+: ", "")) end
	end
	local ok, msg = xpcall(function() return risky(9) end,
		function(e) return "handled " .. e.code end)
	return hstr(acc, tostring(ok) .. msg)
end

-- the compiler: load() of generated chunks
local function compile(n)
	local acc = 0
	for i = 1, n // 40 do
		local src = {}
		src[#src + 1] = "local a, b = ...\nlocal t = {}\n"
		for j = 1, 12 do
			src[#src + 1] = string.format(
				"local function f%d(x, y)\n  if x > y then return x - y * %d\n" ..
				"  elseif x == y then return %d\n  else\n    local s = 0\n" ..
				"    for k = 1, %d do s = s + (x * k) %% (y + %d) end\n" ..
				"    return s\n  end\nend\nt[%d] = f%d(a + %d, b)\n",
				j, j, j * i, j + 3, j, j, j, j % 4)
		end
		src[#src + 1] = "local s = 0 for i = 1, #t do s = s + t[i] end return s, #t\n"
		local chunk = assert(load(table.concat(src), "=gen" .. i))
		local s, m = chunk(i, 3)
		acc = h(acc, s % 100000 + m)
	end
	local ok, err = load("return 1 +* 2", "=bad")
	return hstr(acc, tostring(ok) .. err)
end

-- garbage: short-lived tables and strings, weak tables, explicit steps
local function garbage(n)
	local acc = 0
	local cache = setmetatable({}, { __mode = "v" })
	for i = 1, n do
		local t = { i, tostring(i), { i } }
		cache[i % 100] = t
		acc = h(acc, #t[2])
	end
	collectgarbage("step", 100)
	local strs = {}
	for i = 1, n // 5 do strs[#strs + 1] = ("x"):rep(i % 40) .. i end
	acc = h(acc, #table.concat(strs))
	collectgarbage()
	return acc
end

local parts = {
	{ "tables", tables, 1500 }, { "strings", strings, 600 },
	{ "closures", closures, 2000 }, { "objects", objects, 1000 },
	{ "coroutines", coroutines, 1000 }, { "numbers", numbers, 1000 },
	{ "errors", errors, 1000 }, { "compile", compile, 300 },
	{ "garbage", garbage, 1500 },
}
for r = 1, rounds do
	local line = {}
	for _, p in ipairs(parts) do
		line[#line + 1] = p[1] .. "=" .. p[2](p[3] + r % 7)
	end
	print(r, table.concat(line, " "))
end
