package tpcc

import (
	"fmt"
	"strings"
)

// ResearchSchema is workload's tpcc schema as cockroach.md §4.3 describes
// it (columns, keys, secondary indexes, the generator 2.1.0 FK indexes
// with --fks, the ten FKs), for the IMPORT statements until the schema
// module exports workload's exact DDL per dialect and generator version;
// the integrator then passes that to ImportOptions.Schema instead.
func ResearchSchema(v Version, fks bool) WorkloadSchema {
	return researchSchema{fkIndexes: fks && v.FKIndexes()}
}

type researchSchema struct{ fkIndexes bool }

func (s researchSchema) CreateBody(table string) (string, error) {
	var lines []string
	switch table {
	case "warehouse":
		lines = []string{"w_id integer not null primary key", "w_name varchar(10)", "w_street_1 varchar(20)",
			"w_street_2 varchar(20)", "w_city varchar(20)", "w_state char(2)", "w_zip char(9)",
			"w_tax decimal(4,4)", "w_ytd decimal(12,2)"}
	case "district":
		lines = []string{"d_id integer not null", "d_w_id integer not null", "d_name varchar(10)",
			"d_street_1 varchar(20)", "d_street_2 varchar(20)", "d_city varchar(20)", "d_state char(2)",
			"d_zip char(9)", "d_tax decimal(4,4)", "d_ytd decimal(12,2)", "d_next_o_id integer",
			"primary key (d_w_id, d_id)"}
	case "customer":
		lines = []string{"c_id integer not null", "c_d_id integer not null", "c_w_id integer not null",
			"c_first varchar(16)", "c_middle char(2)", "c_last varchar(16)", "c_street_1 varchar(20)",
			"c_street_2 varchar(20)", "c_city varchar(20)", "c_state char(2)", "c_zip char(9)",
			"c_phone char(16)", "c_since timestamp", "c_credit char(2)", "c_credit_lim decimal(12,2)",
			"c_discount decimal(4,4)", "c_balance decimal(12,2)", "c_ytd_payment decimal(12,2)",
			"c_payment_cnt integer", "c_delivery_cnt integer", "c_data varchar(500)",
			"primary key (c_w_id, c_d_id, c_id)", "index customer_idx (c_w_id, c_d_id, c_last, c_first)"}
	case "history":
		lines = []string{"rowid uuid not null default gen_random_uuid()", "h_c_id integer not null",
			"h_c_d_id integer not null", "h_c_w_id integer not null", "h_d_id integer not null",
			"h_w_id integer not null", "h_date timestamp", "h_amount decimal(6,2)", "h_data varchar(24)",
			"primary key (h_w_id, rowid)"}
		if s.fkIndexes {
			lines = append(lines, "index history_customer_fk_idx (h_c_w_id, h_c_d_id, h_c_id)",
				"index history_district_fk_idx (h_w_id, h_d_id)")
		}
	case "order":
		lines = []string{"o_id integer not null", "o_d_id integer not null", "o_w_id integer not null",
			"o_c_id integer", "o_entry_d timestamp", "o_carrier_id integer", "o_ol_cnt integer",
			"o_all_local integer", "primary key (o_w_id, o_d_id, o_id DESC)",
			"unique index order_idx (o_w_id, o_d_id, o_c_id, o_id DESC) storing (o_entry_d, o_carrier_id)"}
	case "new_order":
		lines = []string{"no_o_id integer not null", "no_d_id integer not null", "no_w_id integer not null",
			"primary key (no_w_id, no_d_id, no_o_id)"}
	case "item":
		lines = []string{"i_id integer not null", "i_im_id integer", "i_name varchar(24)",
			"i_price decimal(5,2)", "i_data varchar(50)", "primary key (i_id)"}
	case "stock":
		lines = []string{"s_i_id integer not null", "s_w_id integer not null", "s_quantity integer"}
		for d := 1; d <= 10; d++ {
			lines = append(lines, fmt.Sprintf("s_dist_%02d char(24)", d))
		}
		lines = append(lines, "s_ytd integer", "s_order_cnt integer", "s_remote_cnt integer",
			"s_data varchar(50)", "primary key (s_w_id, s_i_id)")
		if s.fkIndexes {
			lines = append(lines, "index stock_item_fk_idx (s_i_id)")
		}
	case "order_line":
		lines = []string{"ol_o_id integer not null", "ol_d_id integer not null", "ol_w_id integer not null",
			"ol_number integer not null", "ol_i_id integer not null", "ol_supply_w_id integer",
			"ol_delivery_d timestamp", "ol_quantity integer", "ol_amount decimal(6,2)",
			"ol_dist_info char(24)", "primary key (ol_w_id, ol_d_id, ol_o_id DESC, ol_number)"}
		if s.fkIndexes {
			lines = append(lines, "index order_line_stock_fk_idx (ol_supply_w_id, ol_i_id)")
		}
	default:
		return "", fmt.Errorf("no table %q in workload's tpcc schema", table)
	}
	return "(\n\t" + strings.Join(lines, ",\n\t") + "\n)", nil
}

// ForeignKeys are the ten FKs of §4.3, added NOT VALID after the load
// (validating them would rescan the data just generated).
func (researchSchema) ForeignKeys() []string {
	return []string{
		`alter table district add foreign key (d_w_id) references warehouse (w_id) not valid`,
		`alter table customer add foreign key (c_w_id, c_d_id) references district (d_w_id, d_id) not valid`,
		`alter table history add foreign key (h_c_w_id, h_c_d_id, h_c_id) references customer (c_w_id, c_d_id, c_id) not valid`,
		`alter table history add foreign key (h_w_id, h_d_id) references district (d_w_id, d_id) not valid`,
		`alter table "order" add foreign key (o_w_id, o_d_id, o_c_id) references customer (c_w_id, c_d_id, c_id) not valid`,
		`alter table new_order add foreign key (no_w_id, no_d_id, no_o_id) references "order" (o_w_id, o_d_id, o_id) not valid`,
		`alter table stock add foreign key (s_w_id) references warehouse (w_id) not valid`,
		`alter table stock add foreign key (s_i_id) references item (i_id) not valid`,
		`alter table order_line add foreign key (ol_w_id, ol_d_id, ol_o_id) references "order" (o_w_id, o_d_id, o_id) not valid`,
		`alter table order_line add foreign key (ol_supply_w_id, ol_i_id) references stock (s_w_id, s_i_id) not valid`,
	}
}
