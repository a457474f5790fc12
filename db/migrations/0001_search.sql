-- Full-text search (FTS5). External-content tables keyed by the base table's rowid, kept in sync by triggers.
-- Note: VACUUM may renumber rowids of tables without an INTEGER PRIMARY KEY; after a VACUUM run
-- INSERT INTO <t>_fts(<t>_fts) VALUES ('rebuild') for each table below (`kontor migrate --rebuild-search`).
CREATE VIRTUAL TABLE customers_fts USING fts5(name, email, vat_number, content='customers', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER customers_fts_ai AFTER INSERT ON customers BEGIN
  INSERT INTO customers_fts(rowid, name, email, vat_number) VALUES (new.rowid, new.name, new.email, new.vat_number);
END;
--> statement-breakpoint
CREATE TRIGGER customers_fts_ad AFTER DELETE ON customers BEGIN
  INSERT INTO customers_fts(customers_fts, rowid, name, email, vat_number) VALUES ('delete', old.rowid, old.name, old.email, old.vat_number);
END;
--> statement-breakpoint
CREATE TRIGGER customers_fts_au AFTER UPDATE OF name, email, vat_number ON customers BEGIN
  INSERT INTO customers_fts(customers_fts, rowid, name, email, vat_number) VALUES ('delete', old.rowid, old.name, old.email, old.vat_number);
  INSERT INTO customers_fts(rowid, name, email, vat_number) VALUES (new.rowid, new.name, new.email, new.vat_number);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE suppliers_fts USING fts5(name, email, vat_number, content='suppliers', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER suppliers_fts_ai AFTER INSERT ON suppliers BEGIN
  INSERT INTO suppliers_fts(rowid, name, email, vat_number) VALUES (new.rowid, new.name, new.email, new.vat_number);
END;
--> statement-breakpoint
CREATE TRIGGER suppliers_fts_ad AFTER DELETE ON suppliers BEGIN
  INSERT INTO suppliers_fts(suppliers_fts, rowid, name, email, vat_number) VALUES ('delete', old.rowid, old.name, old.email, old.vat_number);
END;
--> statement-breakpoint
CREATE TRIGGER suppliers_fts_au AFTER UPDATE OF name, email, vat_number ON suppliers BEGIN
  INSERT INTO suppliers_fts(suppliers_fts, rowid, name, email, vat_number) VALUES ('delete', old.rowid, old.name, old.email, old.vat_number);
  INSERT INTO suppliers_fts(rowid, name, email, vat_number) VALUES (new.rowid, new.name, new.email, new.vat_number);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE expenses_fts USING fts5(description, vendor, category, content='expenses', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER expenses_fts_ai AFTER INSERT ON expenses BEGIN
  INSERT INTO expenses_fts(rowid, description, vendor, category) VALUES (new.rowid, new.description, new.vendor, new.category);
END;
--> statement-breakpoint
CREATE TRIGGER expenses_fts_ad AFTER DELETE ON expenses BEGIN
  INSERT INTO expenses_fts(expenses_fts, rowid, description, vendor, category) VALUES ('delete', old.rowid, old.description, old.vendor, old.category);
END;
--> statement-breakpoint
CREATE TRIGGER expenses_fts_au AFTER UPDATE OF description, vendor, category ON expenses BEGIN
  INSERT INTO expenses_fts(expenses_fts, rowid, description, vendor, category) VALUES ('delete', old.rowid, old.description, old.vendor, old.category);
  INSERT INTO expenses_fts(rowid, description, vendor, category) VALUES (new.rowid, new.description, new.vendor, new.category);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE accounts_fts USING fts5(code, name, content='accounts', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER accounts_fts_ai AFTER INSERT ON accounts BEGIN
  INSERT INTO accounts_fts(rowid, code, name) VALUES (new.rowid, new.code, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER accounts_fts_ad AFTER DELETE ON accounts BEGIN
  INSERT INTO accounts_fts(accounts_fts, rowid, code, name) VALUES ('delete', old.rowid, old.code, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER accounts_fts_au AFTER UPDATE OF code, name ON accounts BEGIN
  INSERT INTO accounts_fts(accounts_fts, rowid, code, name) VALUES ('delete', old.rowid, old.code, old.name);
  INSERT INTO accounts_fts(rowid, code, name) VALUES (new.rowid, new.code, new.name);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE bank_accounts_fts USING fts5(name, iban, content='bank_accounts', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER bank_accounts_fts_ai AFTER INSERT ON bank_accounts BEGIN
  INSERT INTO bank_accounts_fts(rowid, name, iban) VALUES (new.rowid, new.name, new.iban);
END;
--> statement-breakpoint
CREATE TRIGGER bank_accounts_fts_ad AFTER DELETE ON bank_accounts BEGIN
  INSERT INTO bank_accounts_fts(bank_accounts_fts, rowid, name, iban) VALUES ('delete', old.rowid, old.name, old.iban);
END;
--> statement-breakpoint
CREATE TRIGGER bank_accounts_fts_au AFTER UPDATE OF name, iban ON bank_accounts BEGIN
  INSERT INTO bank_accounts_fts(bank_accounts_fts, rowid, name, iban) VALUES ('delete', old.rowid, old.name, old.iban);
  INSERT INTO bank_accounts_fts(rowid, name, iban) VALUES (new.rowid, new.name, new.iban);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE invoices_fts USING fts5(number, customer_name, tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER invoices_fts_ai AFTER INSERT ON invoices BEGIN
  INSERT INTO invoices_fts(rowid, number, customer_name) VALUES (new.rowid, new.number, (SELECT name FROM customers WHERE id = new.customer_id));
END;
--> statement-breakpoint
CREATE TRIGGER invoices_fts_ad AFTER DELETE ON invoices BEGIN
  DELETE FROM invoices_fts WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER invoices_fts_au AFTER UPDATE OF number, customer_id ON invoices BEGIN
  UPDATE invoices_fts SET number = new.number, customer_name = (SELECT name FROM customers WHERE id = new.customer_id) WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER invoices_fts_customer_renamed AFTER UPDATE OF name ON customers BEGIN
  UPDATE invoices_fts SET customer_name = new.name WHERE rowid IN (SELECT rowid FROM invoices WHERE customer_id = new.id);
END;
