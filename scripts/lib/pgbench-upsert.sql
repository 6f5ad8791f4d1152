\set id random(1, 20000)
INSERT INTO bench_kv (k, v) VALUES (:id, 'x') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
