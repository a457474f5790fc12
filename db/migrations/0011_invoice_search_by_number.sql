-- Invoice search matches the number here and the customer's name in customers_fts (server/invoices/service.ts).
-- The name copied into every invoice's document made each name word's doclist as long as the
-- customer's invoices: a two-word search read ~1 ms of doclists at a million invoices, 20 µs
-- through the 50,000 customers, and a rename rewrote every invoice of the customer.
DROP TRIGGER invoices_fts_ai;
--> statement-breakpoint
DROP TRIGGER invoices_fts_ad;
--> statement-breakpoint
DROP TRIGGER invoices_fts_au;
--> statement-breakpoint
DROP TRIGGER invoices_fts_customer_renamed;
--> statement-breakpoint
DROP TABLE invoices_fts;
--> statement-breakpoint
CREATE VIRTUAL TABLE invoices_fts USING fts5(number, content='invoices', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
INSERT INTO invoices_fts(invoices_fts) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER invoices_fts_ai AFTER INSERT ON invoices BEGIN
  INSERT INTO invoices_fts(rowid, number) VALUES (new.rowid, new.number);
END;
--> statement-breakpoint
CREATE TRIGGER invoices_fts_ad AFTER DELETE ON invoices BEGIN
  INSERT INTO invoices_fts(invoices_fts, rowid, number) VALUES ('delete', old.rowid, old.number);
END;
--> statement-breakpoint
CREATE TRIGGER invoices_fts_au AFTER UPDATE OF number ON invoices BEGIN
  INSERT INTO invoices_fts(invoices_fts, rowid, number) VALUES ('delete', old.rowid, old.number);
  INSERT INTO invoices_fts(rowid, number) VALUES (new.rowid, new.number);
END;
