ALTER TABLE `invoices` ADD `issued_customer` text;
--> statement-breakpoint
-- custom
-- An issued document embeds the customer as it was issued (docs/api.md#embedded-data). The
-- documents issued before embed the buyer their PDF and e-invoice carry (issued_parties), with
-- the customer's other fields as they are at the upgrade, in the shape of GET /customers/{id}
-- (server/customers/service.ts showCustomer; server/invoices/issued-customer.ts issuedCustomerOf).
-- One issued before its parties were frozen (no issued_parties) keeps embedding the live customer.
UPDATE `invoices` SET `issued_customer` = (
  SELECT json_object(
    'id', c.id,
    'type', CASE WHEN json_extract(invoices.issued_parties, '$.buyer.vatNumber') IS NOT NULL THEN 'organization' ELSE 'individual' END,
    'name', json_extract(invoices.issued_parties, '$.buyer.name'),
    'email', json_extract(invoices.issued_parties, '$.buyer.email'),
    'phone', json_extract(invoices.issued_parties, '$.buyer.phone'),
    'address', json_extract(invoices.issued_parties, '$.buyer.address'),
    'city', json_extract(invoices.issued_parties, '$.buyer.city'),
    'postal_code', json_extract(invoices.issued_parties, '$.buyer.postalCode'),
    'country', json_extract(invoices.issued_parties, '$.buyer.country'),
    'vat_number', json_extract(invoices.issued_parties, '$.buyer.vatNumber'),
    'company_number', json_extract(invoices.issued_parties, '$.buyer.companyNumber'),
    'currency', c.currency,
    'payment_terms', c.payment_terms,
    'peppol_id', json_extract(invoices.issued_parties, '$.buyer.peppolId'),
    'language', c.language,
    'external_id', c.external_id,
    'metadata', json(c.metadata),
    'created_at', c.created_at,
    'updated_at', c.updated_at,
    'buyer_reference', c.buyer_reference,
    'einvoice_profile', c.einvoice_profile,
    'preferred_channel', c.preferred_channel,
    'reminders_paused', json(CASE WHEN c.reminders_paused THEN 'true' ELSE 'false' END),
    'reminders_paused_reason', c.reminders_paused_reason,
    -- json(): a subquery's value comes back as text, which json_object would quote
    'contact_persons', json((
      SELECT json_group_array(json(p.shown)) FROM (
        SELECT json_object(
          'id', cp.id,
          'first_name', cp.first_name,
          'last_name', cp.last_name,
          'full_name', trim(cp.first_name || ' ' || cp.last_name),
          'email', cp.email,
          'phone', cp.phone,
          'position', cp.position,
          'is_primary', json(CASE WHEN cp.is_primary THEN 'true' ELSE 'false' END),
          'notes', cp.notes,
          'created_at', cp.created_at,
          'updated_at', cp.updated_at
        ) AS shown
        FROM `contact_persons` cp WHERE cp.customer_id = c.id ORDER BY cp.created_at, cp.id
      ) p
    ))
  )
  FROM `customers` c WHERE c.id = invoices.customer_id
)
WHERE `issued_parties` IS NOT NULL AND `issued_customer` IS NULL;
