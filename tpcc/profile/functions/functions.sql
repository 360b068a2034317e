-- The functions profile's five transactions (fn_profile.go): each is one
-- call of one of these PL/pgSQL functions, so a transaction costs one round
-- trip. `benchrig tpcc init` installs them on PostgreSQL (CREATE OR REPLACE:
-- init stays idempotent). Where HammerDB's functions loop row by row, these
-- are set-oriented: New-Order updates its stock rows and inserts its order
-- lines in one statement over the input arrays, Delivery delivers all ten
-- districts in one statement. Clause numbers are the TPC-C specification's.
--
-- Errors the client recognises by SQLSTATE (fn_profile.go): BR001 is
-- New-Order's rollback on an unused item (clause 2.4.2.3), BR002 a customer
-- name with no customer, BR003 a Delivery that changed fewer rows than it
-- deleted from NEW-ORDER. Serialization failures and deadlocks (40001,
-- 40P01) reach the client unchanged and are retried there.
--
-- "#variable_conflict use_column": in the statements a name is the table's
-- column; the OUT parameters of the same names are only assigned by INTO.

-- Clause 2.4.2.2. p_items, p_supply and p_qty are the lines in input order
-- (the n-th element is OL_NUMBER n). Locks: the district row, then the stock
-- rows in (S_W_ID, S_I_ID) order, as the pipelined profile takes them, so
-- concurrent New-Orders never deadlock. Returns the order's O_ID and the
-- total of clause 2.4.3.3.
CREATE OR REPLACE FUNCTION benchrig_new_order(p_w INT, p_d INT, p_c INT, p_items INT[], p_supply INT[], p_qty INT[],
	OUT order_id INT, OUT total NUMERIC)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_d_tax NUMERIC;
	v_w_tax NUMERIC;
	v_discount NUMERIC;
	v_lines INT := cardinality(p_items);
	v_done INT;
BEGIN
	-- An upsert on the primary key, as new_order.go does (issue 22: no
	-- relation-level predicate lock under SERIALIZABLE).
	INSERT INTO district (d_w_id, d_id) VALUES (p_w, p_d)
	ON CONFLICT (d_w_id, d_id) DO UPDATE SET d_next_o_id = district.d_next_o_id + 1
	RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, order_id;

	SELECT c_discount, w_tax INTO v_discount, v_w_tax FROM customer, warehouse
	WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;

	WITH o AS (
		INSERT INTO "order" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
		VALUES (order_id, p_d, p_w, p_c, now(), v_lines, CASE WHEN p_w = ALL (p_supply) THEN 1 ELSE 0 END))
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (order_id, p_d, p_w);

	-- Every line at once: the stock rows are updated in (supply warehouse,
	-- item) order (the sorted input drives the join), and each updated row
	-- becomes its order line, priced by the item in exact NUMERIC. The
	-- unused item of the 1% rollback has no stock and no item row, so it
	-- updates and inserts nothing: all valid items are processed before
	-- the transaction notices it (clause 2.4.2.3).
	WITH l AS (
		SELECT * FROM unnest(p_items, p_supply, p_qty) WITH ORDINALITY AS l(i, sw, q, n) ORDER BY sw, i),
	s AS (
		UPDATE stock SET
			s_quantity = CASE WHEN s_quantity >= l.q + 10 THEN s_quantity - l.q ELSE s_quantity - l.q + 91 END,
			s_ytd = s_ytd + l.q, s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + CASE WHEN l.sw = p_w THEN 0 ELSE 1 END
		FROM l WHERE s_w_id = l.sw AND s_i_id = l.i
		RETURNING l.n, l.i, l.sw, l.q, CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
			WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07
			WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist),
	ins AS (
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
		SELECT order_id, p_d, p_w, s.n, s.i, s.sw, s.q, s.q * it.i_price, s.dist FROM s JOIN item AS it ON it.i_id = s.i
		RETURNING ol_amount)
	SELECT count(*), sum(ol_amount) INTO v_done, total FROM ins;

	IF v_done < v_lines THEN
		RAISE EXCEPTION USING ERRCODE = 'BR001',
			MESSAGE = format('new-order: %s of %s items not found, rolled back (clause 2.4.2.3)', v_lines - v_done, v_lines);
	END IF;
	total := total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
END
$$;

-- Clause 2.5.2.2. p_c = 0 selects the customer by p_last: of the customers
-- of that name sorted by C_FIRST, the one at position ceil(n/2). Locks
-- warehouse, district, customer in that order (each statement reads the
-- previous one's row). Money arrives in cents and becomes NUMERIC.
CREATE OR REPLACE FUNCTION benchrig_payment(p_w INT, p_d INT, p_cw INT, p_cd INT, p_c INT, p_last TEXT, p_cents INT8,
	OUT c_id INT, OUT w_street_1 TEXT, OUT w_street_2 TEXT, OUT w_city TEXT, OUT w_state TEXT, OUT w_zip TEXT,
	OUT d_street_1 TEXT, OUT d_street_2 TEXT, OUT d_city TEXT, OUT d_state TEXT, OUT d_zip TEXT,
	OUT c_first TEXT, OUT c_middle TEXT, OUT c_last TEXT, OUT c_street_1 TEXT, OUT c_street_2 TEXT, OUT c_city TEXT,
	OUT c_state TEXT, OUT c_zip TEXT, OUT c_phone TEXT, OUT c_since TIMESTAMP, OUT c_credit TEXT,
	OUT c_credit_lim NUMERIC, OUT c_discount NUMERIC, OUT c_balance NUMERIC, OUT c_data TEXT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_c INT := p_c;
	v_amount NUMERIC := p_cents * 0.01;
BEGIN
	IF v_c = 0 THEN
		SELECT (array_agg(cu.c_id ORDER BY cu.c_first))[(count(*) + 1) / 2] INTO v_c
		FROM customer AS cu WHERE cu.c_w_id = p_cw AND cu.c_d_id = p_cd AND cu.c_last = p_last;
		IF v_c IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'BR002', MESSAGE = format('no customer named %s in %s/%s', p_last, p_cw, p_cd);
		END IF;
	END IF;
	c_id := v_c;

	-- W_YTD and D_YTD grow by H_AMOUNT; the upserts take the rows by
	-- their keys (payment.go, issue 22). The customer's update reads the
	-- district's row and the district's the warehouse's, so the locks are
	-- taken in that order. For bad credit ("BC") C_ID, C_D_ID, C_W_ID,
	-- D_ID, W_ID and H_AMOUNT go to the left of C_DATA, which keeps its
	-- first 500 characters; the HISTORY row's H_DATA is W_NAME, four
	-- spaces, D_NAME.
	WITH w AS (
		INSERT INTO warehouse (w_id) VALUES (p_w) ON CONFLICT (w_id) DO UPDATE SET w_ytd = warehouse.w_ytd + v_amount
		RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
	d AS (
		INSERT INTO district (d_w_id, d_id) SELECT p_w, p_d FROM w
		ON CONFLICT (d_w_id, d_id) DO UPDATE SET d_ytd = district.d_ytd + v_amount
		RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
	c AS (
		UPDATE customer AS cu SET c_balance = cu.c_balance - v_amount, c_ytd_payment = cu.c_ytd_payment + v_amount,
			c_payment_cnt = cu.c_payment_cnt + 1,
			c_data = CASE cu.c_credit WHEN 'BC' THEN substr(format('%s %s %s %s %s %s | ', v_c, p_cd, p_cw, p_d, p_w, v_amount) || cu.c_data, 1, 500)
				ELSE cu.c_data END
		FROM d WHERE cu.c_w_id = p_cw AND cu.c_d_id = p_cd AND cu.c_id = v_c
		RETURNING cu.c_first, cu.c_middle, cu.c_last, cu.c_street_1, cu.c_street_2, cu.c_city, cu.c_state, cu.c_zip,
			cu.c_phone, cu.c_since, cu.c_credit, cu.c_credit_lim, cu.c_discount, cu.c_balance,
			CASE cu.c_credit WHEN 'BC' THEN substr(cu.c_data, 1, 200) ELSE '' END AS data),
	h AS (
		INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		SELECT v_c, p_cd, p_cw, p_d, p_w, now(), v_amount, w.w_name || '    ' || d.d_name FROM w, d)
	SELECT w.w_street_1, w.w_street_2, w.w_city, w.w_state, w.w_zip,
		d.d_street_1, d.d_street_2, d.d_city, d.d_state, d.d_zip,
		c.c_first, c.c_middle, c.c_last, c.c_street_1, c.c_street_2, c.c_city, c.c_state, c.c_zip,
		c.c_phone, c.c_since, c.c_credit, c.c_credit_lim, c.c_discount, c.c_balance, c.data
	INTO w_street_1, w_street_2, w_city, w_state, w_zip, d_street_1, d_street_2, d_city, d_state, d_zip,
		c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
		c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_data
	FROM w, d, c;
	IF NOT FOUND THEN
		RAISE EXCEPTION USING ERRCODE = 'BR002', MESSAGE = format('no customer %s in %s/%s', v_c, p_cw, p_cd);
	END IF;
END
$$;

-- Clause 2.6.2.2, read-only. STABLE: every statement reads the snapshot of
-- the call, so customer, order and lines agree at any isolation level. One
-- row per line of the customer's latest order (one row with NULL order
-- columns when the customer has none yet).
CREATE OR REPLACE FUNCTION benchrig_order_status(p_w INT, p_d INT, p_c INT, p_last TEXT)
RETURNS TABLE (c_id INT, c_balance NUMERIC, c_first TEXT, c_middle TEXT, c_last TEXT,
	o_id INT, o_entry_d TIMESTAMP, o_carrier_id INT,
	ol_i_id INT, ol_supply_w_id INT, ol_quantity INT, ol_amount NUMERIC, ol_delivery_d TIMESTAMP)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
	v_c INT := p_c;
BEGIN
	IF v_c = 0 THEN
		SELECT (array_agg(cu.c_id ORDER BY cu.c_first))[(count(*) + 1) / 2] INTO v_c
		FROM customer AS cu WHERE cu.c_w_id = p_w AND cu.c_d_id = p_d AND cu.c_last = p_last;
		IF v_c IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'BR002', MESSAGE = format('no customer named %s in %s/%s', p_last, p_w, p_d);
		END IF;
	END IF;
	RETURN QUERY
	SELECT cu.c_id, cu.c_balance::NUMERIC, cu.c_first::TEXT, cu.c_middle::TEXT, cu.c_last::TEXT,
		o.o_id, o.o_entry_d, o.o_carrier_id,
		ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount::NUMERIC, ol.ol_delivery_d
	FROM customer AS cu
	LEFT JOIN LATERAL (
		SELECT od.o_id, od.o_entry_d, od.o_carrier_id FROM "order" AS od
		WHERE od.o_w_id = p_w AND od.o_d_id = p_d AND od.o_c_id = cu.c_id ORDER BY od.o_id DESC LIMIT 1) AS o ON true
	LEFT JOIN order_line AS ol ON ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id = o.o_id
	WHERE cu.c_w_id = p_w AND cu.c_d_id = p_d AND cu.c_id = v_c;
END
$$;

-- Clause 2.7.4.2 for all ten districts in one statement (clause 2.7.4.1
-- allows one database transaction for all ten): in each district the
-- oldest undelivered order is locked (FOR UPDATE, districts in order 1..10;
-- under read committed a row another Delivery removed meanwhile is passed
-- over for the next), removed from NEW-ORDER, gets its carrier, its lines
-- the delivery date and its customer the sum of the lines. Returns the
-- districts skipped for want of an undelivered order (clause 2.7.4.2).
CREATE OR REPLACE FUNCTION benchrig_delivery(p_w INT, p_carrier INT, OUT skipped INT)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_new INT;
	v_orders INT;
	v_customers INT;
BEGIN
	WITH oldest AS (
		SELECT g.d, x.no_o_id FROM generate_series(1, 10) AS g(d),
		LATERAL (SELECT n.no_o_id FROM new_order AS n WHERE n.no_w_id = p_w AND n.no_d_id = g.d
			ORDER BY n.no_o_id LIMIT 1 FOR UPDATE) AS x),
	dn AS (
		DELETE FROM new_order AS n USING oldest
		WHERE n.no_w_id = p_w AND n.no_d_id = oldest.d AND n.no_o_id = oldest.no_o_id
		RETURNING n.no_d_id, n.no_o_id),
	o AS (
		UPDATE "order" AS od SET o_carrier_id = p_carrier FROM dn
		WHERE od.o_w_id = p_w AND od.o_d_id = dn.no_d_id AND od.o_id = dn.no_o_id
		RETURNING od.o_d_id, od.o_c_id),
	ol AS (
		UPDATE order_line AS l SET ol_delivery_d = now() FROM dn
		WHERE l.ol_w_id = p_w AND l.ol_d_id = dn.no_d_id AND l.ol_o_id = dn.no_o_id
		RETURNING l.ol_d_id, l.ol_amount),
	c AS (
		UPDATE customer AS cu SET c_balance = cu.c_balance + t.amount, c_delivery_cnt = cu.c_delivery_cnt + 1
		FROM (SELECT o.o_d_id, o.o_c_id, sum(ol.ol_amount) AS amount FROM o JOIN ol ON ol.ol_d_id = o.o_d_id
			GROUP BY o.o_d_id, o.o_c_id) AS t
		WHERE cu.c_w_id = p_w AND cu.c_d_id = t.o_d_id AND cu.c_id = t.o_c_id
		RETURNING 1)
	SELECT (SELECT count(*) FROM dn), (SELECT count(*) FROM o), (SELECT count(*) FROM c)
	INTO v_new, v_orders, v_customers;
	IF v_orders <> v_new OR v_customers <> v_new THEN
		RAISE EXCEPTION USING ERRCODE = 'BR003',
			MESSAGE = format('delivery (w %s): %s orders taken from new_order, %s orders and %s customers updated', p_w, v_new, v_orders, v_customers);
	END IF;
	skipped := 10 - v_new;
END
$$;

-- Clause 2.8.2.2 as one statement (stock_level.go's): the distinct items
-- of the district's last 20 orders whose home stock is below the threshold.
CREATE OR REPLACE FUNCTION benchrig_stock_level(p_w INT, p_d INT, p_threshold INT)
RETURNS BIGINT
LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN (SELECT count(DISTINCT s.s_i_id) FROM district AS d, order_line AS ol, stock AS s
		WHERE d.d_w_id = p_w AND d.d_id = p_d
		AND ol.ol_w_id = p_w AND ol.ol_d_id = p_d AND ol.ol_o_id < d.d_next_o_id AND ol.ol_o_id >= d.d_next_o_id - 20
		AND s.s_w_id = p_w AND s.s_i_id = ol.ol_i_id AND s.s_quantity < p_threshold);
END
$$;
